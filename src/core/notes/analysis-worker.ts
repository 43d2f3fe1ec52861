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
    // A note cut to its analysed part says so as its whole text would have (summaries carry no such flag).
    let result: unknown;
    if (request.op === 'metadata') {
      const analysis = analyseNote(request.text);
      result = { ...analysis, truncated: analysis.truncated || request.cut };
    } else if (request.op === 'tasks') {
      const tasks = extractTasks(request.text);
      result = { ...tasks, truncated: tasks.truncated || request.cut };
    } else result = extractiveSummary(request.text, request.maxLength);
    reply = { id: request.id, result };
  } catch (err) {
    reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
