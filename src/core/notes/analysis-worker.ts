// The note analysis worker (bundled as dist/note-worker.js): parses one large note at a time off the protocol thread.
import { parentPort } from 'node:worker_threads';
import { analyseNote } from './metadata';
import { extractiveSummary } from './summary';
import { extractTasks } from './tasks';
import type { AnalysisRequest, AnalysisReply } from './analyser';

const port = parentPort;
if (!port) throw new Error('note-worker.js runs as a worker thread');

port.on('message', (request: AnalysisRequest) => {
  let reply: AnalysisReply;
  try {
    const result =
      request.op === 'metadata' ? analyseNote(request.text) : request.op === 'tasks' ? extractTasks(request.text) : extractiveSummary(request.text, request.maxLength);
    reply = { id: request.id, result };
  } catch (err) {
    reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
