// Note analysis (metadata, tasks, summaries) for the server: small notes inline, large ones in a worker thread, so
// that parsing a megabyte of markdown (up to a second or two for some texts) holds up no other request, and a request
// cancelled or timed out stops its parse at once instead of after it.
import fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { NotesError } from '../errors';
import { analysedPart } from './limits';
import { analyseNote, type NoteAnalysis } from './metadata';
import { extractiveSummary } from './summary';
import { extractTasks, type ExtractedTask } from './tasks';

/** Notes up to this many characters are parsed on the calling thread: tens of milliseconds, less than a worker hop. */
export const INLINE_ANALYSIS_CHARS = 128 * 1024;
/** The worker ends after this long without work, giving back the memory of its last parse. */
const IDLE_MS = 30_000;
/**
 * Heap of the worker. A megabyte of ordinary markdown needs tens of megabytes of tokens, but a megabyte table of 20
 * columns needs about 300 MB of old generation (380 MB of heap in all); past this a runaway parse is stopped, not the server.
 */
const WORKER_HEAP_MB = 1024;

/** `cut`: `text` is the analysed part of a longer note (only that part is copied to the worker). */
export type AnalysisRequest =
  | { id: number; op: 'metadata'; text: string; cut: boolean }
  | { id: number; op: 'tasks'; text: string; cut: boolean }
  | { id: number; op: 'summary'; text: string; cut: boolean; maxLength: number };
export type AnalysisReply = { id: number; result: unknown } | { id: number; error: string };

type Request = AnalysisRequest extends infer R ? (R extends AnalysisRequest ? Omit<R, 'id' | 'cut'> : never) : never;

/**
 * What a request answers, on whichever thread parses it. A note cut to its analysed part (`cut`) says so as its
 * whole text would have (summaries carry no such flag).
 */
export function analyse(request: Request & { cut: boolean }): unknown {
  if (request.op === 'metadata') {
    const analysis = analyseNote(request.text);
    return { ...analysis, truncated: analysis.truncated || request.cut };
  }
  if (request.op === 'tasks') {
    const tasks = extractTasks(request.text);
    return { ...tasks, truncated: tasks.truncated || request.cut };
  }
  return extractiveSummary(request.text, request.maxLength);
}

interface Job {
  request: AnalysisRequest;
  signal?: AbortSignal;
  resolve(value: unknown): void;
  reject(err: Error): void;
  onAbort?: () => void;
}

function abortReason(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new Error('The request was cancelled.');
}

export class NoteAnalyser {
  private worker: Worker | undefined;
  /** Jobs not yet sent; the worker gets one at a time, so a cancelled job that waits never reaches it. */
  private readonly queue: Job[] = [];
  private running: Job | undefined;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Whether workerFile exists, looked up once. */
  private workerFound: boolean | undefined;

  /**
   * `workerFile`: the bundled worker (dist/note-worker.js). When it is missing (the sources run unbundled), every
   * note is parsed inline.
   */
  constructor(
    private readonly workerFile: string,
    private readonly log: (level: 'warn' | 'error', message: string) => void = () => undefined,
  ) {}

  metadata(text: string, signal?: AbortSignal): Promise<NoteAnalysis> {
    return this.run({ op: 'metadata', text }, signal) as Promise<NoteAnalysis>;
  }

  tasks(text: string, signal?: AbortSignal): Promise<{ tasks: ExtractedTask[]; truncated: boolean }> {
    return this.run({ op: 'tasks', text }, signal) as Promise<{ tasks: ExtractedTask[]; truncated: boolean }>;
  }

  summary(text: string, maxLength: number, signal?: AbortSignal): Promise<string> {
    return this.run({ op: 'summary', text, maxLength }, signal) as Promise<string>;
  }

  /** True while a worker thread is alive (for tests and the status of the server). */
  get workerRunning(): boolean {
    return this.worker !== undefined;
  }

  dispose(): void {
    this.disposed = true;
    const pending = [...(this.running ? [this.running] : []), ...this.queue.splice(0)];
    this.running = undefined;
    for (const job of pending) this.settle(job, () => job.reject(new NotesError('INTERNAL', 'The server is shutting down.')));
    this.stopWorker();
  }

  private run(request: Request, signal?: AbortSignal): Promise<unknown> {
    if (request.text.length <= INLINE_ANALYSIS_CHARS || !this.workerExists() || this.disposed) {
      return new Promise((resolve) => resolve(analyse({ ...request, cut: false })));
    }
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    // Only the part that is analysed travels: a 10 MB note costs the protocol thread one copy of 1 MB, not 10.
    const part = analysedPart(request.text);
    return new Promise((resolve, reject) => {
      const job: Job = { request: { ...request, text: part.text, cut: part.truncated, id: this.nextId++ } as AnalysisRequest, signal, resolve, reject };
      if (signal) {
        job.onAbort = () => this.abort(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  private workerExists(): boolean {
    this.workerFound ??= fs.existsSync(this.workerFile);
    return this.workerFound;
  }

  /** A job waiting is dropped; the job being parsed stops with its worker, and the next job gets a new one. */
  private abort(job: Job): void {
    const reason = abortReason(job.signal);
    if (this.running === job) {
      this.running = undefined;
      this.stopWorker();
    } else {
      const at = this.queue.indexOf(job);
      if (at < 0) return;
      this.queue.splice(at, 1);
    }
    this.settle(job, () => job.reject(reason));
    this.pump();
  }

  private pump(): void {
    if (this.running || this.disposed) return;
    const job = this.queue.shift();
    if (!job) {
      if (this.worker) this.idleTimer ??= setTimeout(() => this.stopWorker(), IDLE_MS).unref();
      return;
    }
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.running = job;
    this.ensureWorker().postMessage(job.request);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    // Loaded here, not as the bundle loads (see workerThreads in worker-boot.ts).
    const worker = new (process.getBuiltinModule('node:worker_threads').Worker)(this.workerFile, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    worker.unref();
    worker.on('message', (reply: AnalysisReply) => {
      const job = this.running;
      if (!job || job.request.id !== reply.id) return;
      this.running = undefined;
      this.settle(job, () => ('error' in reply ? job.reject(new Error(reply.error)) : job.resolve(reply.result)));
      this.pump();
    });
    // A worker that dies (out of memory, a crash) fails the job it had; the next job starts a new one.
    const failed = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const job = this.running;
      this.running = undefined;
      if (job) {
        this.log('error', `Note analysis worker stopped while parsing a note of ${job.request.text.length} characters: ${why}`);
        this.settle(job, () => job.reject(new NotesError('INTERNAL', `Analysing the note failed: ${why}`)));
      }
      this.pump();
    };
    worker.on('error', (err) => failed(err.message));
    worker.on('exit', (code) => failed(`the worker exited with code ${code}`));
    this.worker = worker;
    return worker;
  }

  private stopWorker(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) void worker.terminate();
  }

  private settle(job: Job, finish: () => void): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    finish();
  }
}
