// The transport checks the params of each standard request by its method's schema (a -32602 error with details
// when they do not fit). Its table names the SDK's schemas one by one, so that each is built only when a request of
// its method comes: it must stay the SDK's own union of client requests, method for method.
import assert from 'node:assert/strict';
import { ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { PassThrough, Writable } from 'node:stream';
import { DEFAULT_LIMITS } from '../../../server/limits';
import { HardenedStdioTransport, REQUEST_SCHEMAS } from '../../../server/transport';

describe("transport: the schemas of requests' params", () => {
  it("has every request of the SDK's union of client requests, each with the SDK's schema, and no other", () => {
    const sdk = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));
    assert.deepEqual([...REQUEST_SCHEMAS.keys()].sort(), [...sdk.keys()].sort());
    for (const [method, schema] of sdk) assert.equal(REQUEST_SCHEMAS.get(method), schema, method);
  });

  it('answers a tasks request whose params do not fit with -32602 and what is wrong, as any other', async () => {
    const stdin = new PassThrough();
    const lines: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        callback();
      },
    });
    const transport = new HardenedStdioTransport({ limits: { ...DEFAULT_LIMITS }, log: () => undefined, stdin, stdout });
    const passed: unknown[] = [];
    transport.onmessage = (message) => passed.push(message);
    await transport.start();
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { taskId: 42 } })}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    await transport.close();
    assert.equal(passed.length, 0, 'not handed to the server');
    assert.equal(lines.length, 1);
    const reply = JSON.parse(lines[0]) as { id: number; error: { code: number; message: string } };
    assert.equal(reply.id, 7);
    assert.equal(reply.error.code, -32602);
    assert.match(reply.error.message, /^Invalid params for tasks\/get: params\.taskId: /);
  });
});
