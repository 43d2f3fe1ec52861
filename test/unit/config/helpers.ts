// Temp folders and a recording logger for the config tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigLogger } from '../../../src/core/config/store';

export function tempConfigDir(): { dir: string; file: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notesapp-config-'));
  return { dir, file: path.join(dir, 'config.json'), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function recordingLogger(): ConfigLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}

export function backupsIn(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => n.endsWith('.bak')).sort();
}

export function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}
