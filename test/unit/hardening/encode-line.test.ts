// The transport's encoding of a reply: byte for byte JSON.stringify of the message and a newline, whether or not a
// tool result's text block stands in for its structuredContent (written once instead of serialised again), and
// whether or not the text block is written from bytes made already (a search's answer).
import * as assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { PassThrough, Writable } from 'node:stream';
import { DEFAULT_LIMITS } from '../../../server/limits';
import { dropEncodedAnswer, hasEncodedAnswer, markEncodedAnswer, markStructuredJson, structuredPlaceholder, textPlaceholder } from '../../../server/structured-json';
import type { NotesContext } from '../../../server/tools/context';
import { defineJsonTool, type ToolExtra } from '../../../server/tools/define-tool';
import { encodeLine, HardenedStdioTransport } from '../../../server/transport';

const plain = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`, 'utf8');

function toolReply(id: string | number, structured: Record<string, unknown>, extra: Record<string, unknown> = {}): JSONRPCMessage {
  const text = JSON.stringify(structured);
  markStructuredJson(text);
  return { result: { content: [{ type: 'text', text }], structuredContent: structured, ...extra }, jsonrpc: '2.0', id } as JSONRPCMessage;
}

describe('transport: encoding a reply', () => {
  const tricky = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\u0000', '\ud800', '\udc00x', '😀', '\u2028', structuredPlaceholder(), JSON.stringify(structuredPlaceholder()), textPlaceholder()));
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(tricky, tie('v'), { maxKeys: 4 })),
  })).v;

  it('writes a tool result whose text is its structured JSON exactly as JSON.stringify would, in every case', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), tricky), fc.dictionary(tricky, value, { maxKeys: 5 }), fc.boolean(), (id, structured, withMore) => {
        const message = toolReply(id, structured, withMore ? { isError: false, _meta: { note: structuredPlaceholder() } } : {});
        assert.deepEqual(encodeLine(message), plain(message));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a JSON answer from its registered bytes exactly as JSON.stringify of the answer would, in every case', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), tricky), fc.dictionary(tricky, value, { maxKeys: 5 }), fc.boolean(), (id, answer, withMore) => {
        const text = JSON.stringify(answer);
        // In pieces, as a search's answer comes: cut anywhere between two bytes.
        const bytes = Buffer.from(JSON.stringify(text).slice(1, -1));
        const cut = Math.floor(bytes.length / 3);
        const standIn = markEncodedAnswer({ text: [bytes.subarray(0, cut), bytes.subarray(cut)] });
        const more = withMore ? { isError: false, _meta: { note: textPlaceholder(), other: standIn } } : {};
        const message = { result: { content: [{ type: 'text', text: standIn }], ...more }, jsonrpc: '2.0', id } as JSONRPCMessage;
        const written = { result: { content: [{ type: 'text', text }], ...more }, jsonrpc: '2.0', id };
        assert.deepEqual(encodeLine(message), plain(written));
        assert.equal(hasEncodedAnswer(standIn), false, 'the answer is let go once written');
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a registered answer\'s bytes in place of the text that stands for it, once', () => {
    const standIn = markEncodedAnswer({ text: [Buffer.from(JSON.stringify('{"from":"the bytes"}').slice(1, -1))] });
    assert.ok(hasEncodedAnswer(standIn));
    const message = { result: { content: [{ type: 'text', text: standIn }] }, jsonrpc: '2.0', id: 9 } as JSONRPCMessage;
    assert.equal(JSON.parse(encodeLine(message).toString()).result.content[0].text, '{"from":"the bytes"}');
    assert.equal(hasEncodedAnswer(standIn), false);
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

/** A transport on in-memory streams, with what it writes parsed line by line. */
async function memoryTransport() {
  const stdin = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  let pending = '';
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      pending += chunk.toString('utf8');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        lines.push(JSON.parse(pending.slice(0, nl)) as Record<string, unknown>);
        pending = pending.slice(nl + 1);
      }
      callback();
    },
  });
  const logged: string[] = [];
  const transport = new HardenedStdioTransport({ limits: { ...DEFAULT_LIMITS }, log: (_level, message) => logged.push(message), stdin, stdout });
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  /** Sends a tools/call request with this id, as a client would, and waits until the transport has taken it. */
  const request = async (id: number) => {
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_files', arguments: { query: 'x' } } })}\n`);
    for (let i = 0; i < 100 && !received.some((m) => 'id' in m && m.id === id); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { transport, lines, logged, request };
}

describe('transport: answers written from bytes', () => {
  const answerReply = (id: number, text: string) => ({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id }) as JSONRPCMessage;

  it('writes the answer in place of its stand-in', async () => {
    const { transport, lines, request } = await memoryTransport();
    await request(1);
    await transport.send(answerReply(1, markEncodedAnswer({ text: [Buffer.from(JSON.stringify('{"results":[]}').slice(1, -1))] })));
    await transport.whenIdle();
    assert.deepEqual(lines, [{ result: { content: [{ type: 'text', text: '{"results":[]}' }] }, jsonrpc: '2.0', id: 1 }]);
    await transport.close();
  });

  it('never writes a stand-in whose answer was let go: the client gets an internal error instead', async () => {
    const { transport, lines, logged, request } = await memoryTransport();
    await request(2);
    const standIn = markEncodedAnswer({ text: [Buffer.from('x')] });
    dropEncodedAnswer(standIn);
    await transport.send(answerReply(2, standIn));
    await transport.whenIdle();
    assert.equal(lines.length, 1);
    assert.deepEqual(lines[0], { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'The answer was lost before it was sent; call the tool again.' } });
    assert.ok(logged.some((m) => m.includes('was lost before it was written')), logged.join('\n'));
    await transport.close();
  });

  it('lets go of the answer of a reply it drops (its request answered already)', async () => {
    const { transport, lines, request } = await memoryTransport();
    await request(3);
    await transport.send(answerReply(3, markEncodedAnswer({ text: [Buffer.from('{}')] })));
    const late = markEncodedAnswer({ text: [Buffer.from('{}')] });
    await transport.send(answerReply(3, late));
    await transport.whenIdle();
    assert.equal(lines.length, 1, 'one reply to request 3');
    assert.equal(hasEncodedAnswer(late), false, 'the late answer is not kept');
    await transport.close();
  });
});

describe('a JSON tool answering with bytes', () => {
  /** The tool's handler as the SDK would call it, registered on a stand-in server. */
  function handlerOf(answer: () => { text: Uint8Array[] }) {
    let handler: ((args: unknown, extra: ToolExtra) => Promise<{ content: Array<{ text: string }> }>) | undefined;
    const ctx = {
      server: { registerTool: (_name: string, _def: unknown, cb: typeof handler) => ((handler = cb), { disable() {}, enable() {}, update() {} }) },
      deps: { log: () => undefined },
      toolCategories: new Map(),
      config: { integrations: { mcp: { tools: { search: true } } } },
      onConfigChanged: () => undefined,
    } as unknown as NotesContext;
    defineJsonTool(ctx, { name: 'bytes_tool', category: 'search', title: 'Bytes', description: 'answers bytes', input: {}, annotations: { readOnlyHint: true }, run: async () => ({ answer: answer() }) });
    return handler as NonNullable<typeof handler>;
  }

  it('keeps its answer for the transport until the request is cancelled, then lets it go', async () => {
    const handler = handlerOf(() => ({ text: [Buffer.from('{}')] }));
    const cancelled = new AbortController();
    const kept = (await handler({}, { signal: cancelled.signal } as ToolExtra)).content[0].text;
    const written = new AbortController();
    const sent = (await handler({}, { signal: written.signal } as ToolExtra)).content[0].text;
    assert.notEqual(kept, sent, 'each answer has a stand-in of its own');
    assert.ok(hasEncodedAnswer(kept) && hasEncodedAnswer(sent));
    cancelled.abort();
    assert.equal(hasEncodedAnswer(kept), false, 'a cancelled request gets no reply: its answer is let go');
    assert.equal(hasEncodedAnswer(sent), true, 'the other is still to be written');
    encodeLine({ result: { content: [{ type: 'text', text: sent }] }, jsonrpc: '2.0', id: 1 } as JSONRPCMessage);
    assert.equal(hasEncodedAnswer(sent), false);
  });
});
