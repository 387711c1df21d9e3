// A TypeScript SDK MCP server for the conformance suite: the session-based
// streamable HTTP transport (the SDK speaks no later revision), three
// tools, and a record of every tool it runs. The SDK's low-level Server is
// used so that the arguments recorded are exactly the ones the SDK parsed
// from the request, with no schema library reshaping them.
//
// Environment: PORT (0 for any), TOOLS_JSON (the tools' definitions, as
// listed), RECORD_FILE (JSON lines, one per run).
// Prints "listening <port>" once it accepts connections.
import http from 'node:http';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const tools = JSON.parse(process.env.TOOLS_JSON);
const recordFile = process.env.RECORD_FILE;

function newServer() {
  const s = new Server({ name: 'ts-peer', version: '1.0.0' }, { capabilities: { tools: {} }, instructions: 'Reviewed instructions of the TypeScript peer.' });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  s.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name, arguments: args } = req.params;
    if (!tools.some((t) => t.name === name)) {
      throw new Error(`unknown tool ${name}`);
    }
    // Recorded before answering: the test reads the file once the answer came.
    fs.appendFileSync(recordFile, JSON.stringify({ tool: name, args: args ?? {} }) + '\n');
    return { content: [{ type: 'text', text: `${name} done` }] };
  });
  return s;
}

const sessions = new Map();

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

const httpServer = http.createServer(async (req, res) => {
  try {
    const sid = req.headers['mcp-session-id'];
    if (sid !== undefined) {
      const t = sessions.get(sid);
      if (!t) {
        res.writeHead(404).end();
        return;
      }
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      await t.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const body = await readBody(req);
    if (!isInitializeRequest(body)) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no session' } }));
      return;
    }
    const t = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, t),
    });
    t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
    await newServer().connect(t);
    await t.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: String(e) } }));
    } else {
      res.end();
    }
  }
});

httpServer.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`listening ${httpServer.address().port}`);
});
