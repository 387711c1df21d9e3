// A TypeScript SDK MCP client for the conformance suite: for each URL on
// the command line it connects (session-based streamable HTTP, 2025-11-25,
// the newest revision the SDK speaks), lists every page of tools and prints
// one JSON line of what the SDK parsed: the tools' names, descriptions and
// input schemas, and the server's instructions, or the error it failed with.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

async function probe(url) {
  const client = new Client({ name: 'ts-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  try {
    await client.connect(transport, { timeout: 30000 });
    const tools = [];
    let cursor;
    for (let page = 0; page < 5; page++) {
      const res = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: 30000 });
      for (const t of res.tools) tools.push({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema });
      cursor = res.nextCursor;
      if (cursor === undefined) break;
    }
    return { url, tools, instructions: client.getInstructions() ?? '' };
  } catch (e) {
    return { url, error: String(e && e.message ? e.message : e) };
  } finally {
    await client.close().catch(() => {});
  }
}

for (const url of process.argv.slice(2)) {
  console.log(JSON.stringify(await probe(url)));
}
