// The note analysis worker (bundled as dist/note-worker.js): parses one large note at a time off the protocol thread.
import { parentPort } from 'node:worker_threads';
import { analyse, type AnalysisReply, type AnalysisRequest } from './analyser';

const port = parentPort;
if (!port) throw new Error('note-worker.js runs as a worker thread');

port.on('message', (request: AnalysisRequest) => {
  let reply: AnalysisReply;
  try {
    reply = { id: request.id, result: analyse(request) };
  } catch (err) {
    reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
