// Server diagnostics: stderr plus a size-bounded, rotated log file; never stdout (stdout carries only protocol).
import fs from 'node:fs';
import path from 'node:path';
import { isSecretKey, REDACTED, redactSecretKeys } from '../src/core/config/redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };


export interface LoggerOptions {
  /** Log file (rotated at `maxBytes`); null for stderr only. */
  file: string | null;
  level?: LogLevel;
  /** Size at which the file is rotated (default 5 MiB). */
  maxBytes?: number;
  /** Rotated files kept beside the current one: mcp-server.log.1 .. .N (default 3). */
  maxFiles?: number;
  /** Where human-readable lines go besides the file; stderr by default. */
  stderr?: { write(text: string): unknown };
  /** Known secret values (e.g. plugin settings) to mask wherever they appear in a message. */
  secrets?: readonly string[];
}

export type LogFn = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

export class Logger {
  private fd: number | undefined;
  private size = 0;
  private secrets: string[] = [];
  private level: LogLevel;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private readonly stderr: { write(text: string): unknown };

  constructor(private readonly options: LoggerOptions) {
    this.level = options.level ?? 'info';
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.maxFiles = options.maxFiles ?? 3;
    this.stderr = options.stderr ?? process.stderr;
    this.addSecrets(options.secrets ?? []);
    if (options.file) this.open(options.file);
  }

  /** Masks these values from now on (known once the configuration is read). */
  addSecrets(values: readonly string[]): void {
    // Longest first, so a secret containing another is masked whole.
    this.secrets = [...new Set([...this.secrets, ...values])].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length);
  }

  setLevel(level: LogLevel): void {
    this.level = level;
  }

  /** Bound `log` function, convenient to hand to modules that only log. */
  readonly log: LogFn = (level, message, fields) => {
    if (RANK[level] < RANK[this.level]) return;
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(redactFields(fields))}` : '';
    const line = `${new Date().toISOString()} [${level}] ${this.mask(message + extra)}\n`;
    try {
      this.stderr.write(line);
    } catch {
      // a closed stderr must not take the server down
    }
    this.writeFile(line);
  };

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private mask(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join(REDACTED);
    return out;
  }

  private open(file: string): void {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      this.fd = fs.openSync(file, 'a', 0o600);
      this.size = fs.fstatSync(this.fd).size;
    } catch (err) {
      this.fd = undefined;
      this.stderr.write(`${new Date().toISOString()} [warn] cannot write the log file ${file}: ${(err as Error).message}\n`);
    }
  }

  private writeFile(line: string): void {
    if (this.fd === undefined || !this.options.file) return;
    const bytes = Buffer.byteLength(line);
    try {
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate(this.options.file);
      if (this.fd === undefined) return;
      fs.writeSync(this.fd, line);
      this.size += bytes;
    } catch {
      // a full disk loses log lines, never requests
    }
  }

  /**
   * Moves the files up by one and starts a new one. A file that is not there (deleted by the user, or rotated away
   * by another server at the same moment) is skipped: the new file is opened whatever became of the old ones, or
   * nothing would be logged to the file again.
   */
  private rotate(file: string): void {
    this.close();
    try {
      for (let i = this.maxFiles - 1; i >= 1; i--) renameIfThere(`${file}.${i}`, `${file}.${i + 1}`);
      if (this.maxFiles > 0) renameIfThere(file, `${file}.1`);
      else fs.rmSync(file, { force: true });
    } finally {
      this.open(file);
    }
  }
}

function renameIfThere(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Copy of `fields` with every secret-named key's value replaced (the configuration's one rule). */
export function redactFields(fields: Record<string, unknown>): unknown {
  return redactSecretKeys(fields);
}

/**
 * Secret values in a configuration: every string under a secret-named key anywhere, and every string of 8 or
 * more characters in plugin settings (their keys are free, so any of them may be a credential).
 */
export function collectSecrets(config: { plugins?: { settings?: unknown } }): string[] {
  const found: string[] = [];
  const walk = (v: unknown, secretKey: boolean, inPluginSettings: boolean): void => {
    if (typeof v === 'string') {
      if (secretKey || (inPluginSettings && v.length >= 8)) found.push(v);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) walk(x, secretKey || isSecretKey(k), inPluginSettings);
  };
  walk(config, false, false);
  walk(config.plugins?.settings, false, true);
  return [...new Set(found)];
}
