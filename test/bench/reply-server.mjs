// The floor of a large answer: an MCP server over stdio that does nothing but answer every tools/call with one
// result read from a file (the JSON of a real answer). Timed through a client, it shows what that client and the
// pipe take to deliver an answer of that size, whatever the server does to make it.
//   node test/bench/reply-server.mjs RESULT.json
import fs from 'node:fs';

const result = fs.readFileSync(process.argv[2], 'utf8');
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
    const message = JSON.parse(pending.slice(0, nl));
    pending = pending.slice(nl + 1);
    if (message.id === undefined) continue;
    const id = JSON.stringify(message.id);
    if (message.method === 'initialize') {
      const init = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'reply-server', version: '1' } };
      process.stdout.write(`{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(init)}}\n`);
    } else if (message.method === 'tools/call') process.stdout.write(`{"jsonrpc":"2.0","id":${id},"result":${result}}\n`);
    else process.stdout.write(`{"jsonrpc":"2.0","id":${id},"result":{}}\n`);
  }
});
process.stdin.on('end', () => process.exit(0));
