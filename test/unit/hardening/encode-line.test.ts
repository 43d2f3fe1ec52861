// The transport's encoding of a reply: byte for byte JSON.stringify of the message and a newline, whether or not a
// tool result's text block stands in for its structuredContent (written once instead of serialised again).
import * as assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { z } from 'zod';
import { skipCheckOfEncodedAnswers } from '../../../server/server';
import { lazyArray, markStructuredJson, STRUCTURED_PLACEHOLDER } from '../../../server/structured-json';
import { encodeLine } from '../../../server/transport';

const plain = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`, 'utf8');

function toolReply(id: string | number, structured: Record<string, unknown>, extra: Record<string, unknown> = {}): JSONRPCMessage {
  const text = JSON.stringify(structured);
  markStructuredJson(text);
  return { result: { content: [{ type: 'text', text }], structuredContent: structured, ...extra }, jsonrpc: '2.0', id } as JSONRPCMessage;
}

describe('transport: encoding a reply', () => {
  const tricky = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000', '\ud800', '\udc00x', '😀', '\u2028', STRUCTURED_PLACEHOLDER, JSON.stringify(STRUCTURED_PLACEHOLDER)));
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(tricky, tie('v'), { maxKeys: 4 })),
  })).v;

  it('writes a tool result whose text is its structured JSON exactly as JSON.stringify would, in every case', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), tricky), fc.dictionary(tricky, value, { maxKeys: 5 }), fc.boolean(), (id, structured, withMore) => {
        const message = toolReply(id, structured, withMore ? { isError: false, _meta: { note: STRUCTURED_PLACEHOLDER } } : {});
        assert.deepEqual(encodeLine(message), plain(message));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes the registered text as the structuredContent (once), and serialises anything else', () => {
    // A registration says the text is the structured JSON; here it is not, which shows which of the two is written.
    const text = '{"from":"the text"}';
    markStructuredJson(text);
    const message = { result: { content: [{ type: 'text', text }], structuredContent: { from: 'the object' } }, jsonrpc: '2.0', id: 7 } as JSONRPCMessage;
    assert.deepEqual(JSON.parse(encodeLine(message).toString()).result.structuredContent, { from: 'the text' });
    assert.deepEqual(JSON.parse(encodeLine(message).toString()).result.structuredContent, { from: 'the object' }, 'a registration is used once');
    const unregistered = { result: { content: [{ type: 'text', text: '{"other":1}' }], structuredContent: { other: 2 } }, jsonrpc: '2.0', id: 8 } as JSONRPCMessage;
    assert.deepEqual(encodeLine(unregistered), plain(unregistered));
    const notification = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'é 😀 \ud800' } } as JSONRPCMessage;
    assert.deepEqual(encodeLine(notification), plain(notification));
  });
});

describe('the SDK check of tool results', () => {
  type Check = (tool: unknown, result: unknown, name: string) => Promise<void>;
  // As createNotesServer sets it up.
  const server = new McpServer({ name: 'test', version: '1' });
  skipCheckOfEncodedAnswers(server);
  const check = (server as unknown as { validateToolOutput: Check }).validateToolOutput.bind(server);
  const tool = { outputSchema: z.object({ results: z.array(z.object({ file: z.string() })) }) };

  after(async () => server.close());

  it('is skipped for an answer written from its bytes, whose records are not made for it', async () => {
    const text = '{"results":[{"file":"a.md"}]}';
    markStructuredJson(text, { answer: { json: [Buffer.from(text)], text: [Buffer.from(JSON.stringify(text).slice(1, -1))] } });
    let made = false;
    const results = lazyArray(() => {
      made = true;
      return [{ file: 'a.md' }];
    });
    await check(tool, { content: [{ type: 'text', text }], structuredContent: { results } }, 'search_files');
    assert.equal(made, false, 'the records were made to be checked');
  });

  it('is skipped for a result its tool marks unchecked', async () => {
    const text = '{"results":[{"file":2}]}';
    markStructuredJson(text, { unchecked: true });
    // Not what the schema says: checked, this would be an error.
    await check(tool, { content: [{ type: 'text', text }], structuredContent: { results: [{ file: 2 }] } }, 'list_files');
  });

  it('still checks every other result', async () => {
    const text = '{"results":[{"file":1}]}';
    markStructuredJson(text);
    await assert.rejects(check(tool, { content: [{ type: 'text', text }], structuredContent: { results: [{ file: 1 }] } }, 'x'), /Output validation error/);
  });
});
