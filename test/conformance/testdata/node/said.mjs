// A TypeScript SDK MCP client for the conformance suite's scan of what
// servers say: for each case on the command line (a JSON array of
// {url, fence}) it connects (session-based streamable HTTP, 2025-11-25, the
// newest revision the SDK speaks) as a client that takes log notifications
// and answers sampling requests, calls get_weather once, and prints one
// JSON line of what the SDK parsed: the result's content and structured
// content, or the error the call failed with, every log notification's
// data and every sampling request's params.
//
// When a case names a fence, a second call follows, whose answer the
// server precedes with a log line saying the fence: once that line has
// been handled, every notification the server sent before it has been too,
// so that what the client did not receive is known, not waited for.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const timeoutMs = 30000;

function message(e) {
  return String(e && e.message ? e.message : e);
}

async function run({ url, fence }) {
  const out = { url, logs: [], samples: [] };
  let fenceSeen;
  const fenced = new Promise((resolve) => { fenceSeen = resolve; });
  const client = new Client({ name: 'ts-agent', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    out.logs.push(n.params.data);
    if (fence && n.params.data === fence) fenceSeen();
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    out.samples.push(req.params);
    return { role: 'assistant', content: { type: 'text', text: 'It will be sunny.' }, model: 'conformance-model', stopReason: 'endTurn' };
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  let timer;
  try {
    await client.connect(transport, { timeout: timeoutMs });
    try {
      const res = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } }, undefined, { timeout: timeoutMs });
      out.content = res.content;
      out.structured = res.structuredContent ?? null;
      out.isError = res.isError === true;
    } catch (e) {
      out.error = message(e);
    }
    if (fence) {
      await client.callTool({ name: 'get_weather', arguments: { city: 'fence' } }, undefined, { timeout: timeoutMs });
      const expired = new Promise((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
      out.fenced = await Promise.race([fenced.then(() => true), expired]);
      if (!out.fenced) out.failed = 'the fence log line never arrived';
    }
  } catch (e) {
    out.failed = message(e);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
  return out;
}

for (const c of JSON.parse(process.argv[2])) {
  console.log(JSON.stringify(await run(c)));
}
