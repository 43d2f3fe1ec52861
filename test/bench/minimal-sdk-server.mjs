// A start-up reference: the smallest MCP server the SDK's documentation shows (McpServer, one tool, the stdio
// transport), run unbundled from node_modules as such a server usually is. Its spawn -> initialize time is what
// any server made with the SDK pays before its own code does anything.
//   node test/bench/minimal-sdk-server.mjs
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'minimal-sdk-server', version: '1.0.0' });
server.registerTool('echo', { description: 'Answers with the text it is given.', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
await server.connect(new StdioServerTransport());
