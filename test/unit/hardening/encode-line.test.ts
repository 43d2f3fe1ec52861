// The transport's encoding of a reply: byte for byte JSON.stringify of the message and a newline, whether or not a
// tool result's text block stands in for its structuredContent (written once instead of serialised again), and
// whether or not the text block is written from bytes made already (a search's answer).
import * as assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { markEncodedAnswer, markStructuredJson, STRUCTURED_PLACEHOLDER, TEXT_PLACEHOLDER } from '../../../server/structured-json';
import { encodeLine } from '../../../server/transport';

const plain = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`, 'utf8');

function toolReply(id: string | number, structured: Record<string, unknown>, extra: Record<string, unknown> = {}): JSONRPCMessage {
  const text = JSON.stringify(structured);
  markStructuredJson(text);
  return { result: { content: [{ type: 'text', text }], structuredContent: structured, ...extra }, jsonrpc: '2.0', id } as JSONRPCMessage;
}

describe('transport: encoding a reply', () => {
  const tricky = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000', '\ud800', '\udc00x', '😀', '\u2028', STRUCTURED_PLACEHOLDER, JSON.stringify(STRUCTURED_PLACEHOLDER), TEXT_PLACEHOLDER));
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

  it('writes a JSON answer from its registered bytes exactly as JSON.stringify would, in every case', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), tricky), fc.dictionary(tricky, value, { maxKeys: 5 }), fc.boolean(), (id, answer, withMore) => {
        const text = JSON.stringify(answer);
        // In pieces, as a search's answer comes: cut anywhere between two bytes.
        const bytes = Buffer.from(JSON.stringify(text).slice(1, -1));
        const cut = Math.floor(bytes.length / 3);
        markEncodedAnswer(text, { text: [bytes.subarray(0, cut), bytes.subarray(cut)] });
        const message = { result: { content: [{ type: 'text', text }], ...(withMore ? { isError: false, _meta: { note: TEXT_PLACEHOLDER } } : {}) }, jsonrpc: '2.0', id } as JSONRPCMessage;
        assert.deepEqual(encodeLine(message), plain(message));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a registered answer\'s bytes in place of its text (once), and serialises anything else', () => {
    // The registration says these bytes are the text; here they are not, which shows which of the two is written.
    const text = '{"from":"the text"}';
    markEncodedAnswer(text, { text: [Buffer.from(JSON.stringify('{"from":"the bytes"}').slice(1, -1))] });
    const message = { result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: 9 } as JSONRPCMessage;
    assert.equal(JSON.parse(encodeLine(message).toString()).result.content[0].text, '{"from":"the bytes"}');
    assert.deepEqual(encodeLine(message), plain(message), 'a registration is used once');
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
