// Latency of klens's MCP listener through the official TypeScript SDK (installed in end2end/):
//   node dev/bench-mcp.mjs URL [SECRET]
// e.g. node dev/bench-mcp.mjs http://127.0.0.1:18095/mcp e2e-mcp-secret against the browser
// suite's instance, or the `mcp` block of any running klens. After three warm-up rounds it times
// 50 `tools/list` calls and 50 one-page `klens_records_read` calls (20 records of the seeded
// `orders` topic on cluster `local`, the newest), each a fresh HTTP request as the listener is
// stateless, and prints p50 and p95 in milliseconds.
import { createRequire } from 'node:module';

const require = createRequire(new URL('../end2end/package.json', import.meta.url));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const [url, secret] = process.argv.slice(2);
if (!url) {
  console.error('usage: node dev/bench-mcp.mjs URL [SECRET]');
  process.exit(2);
}
const headers = secret ? { Authorization: `Bearer ${secret}` } : {};
const client = new Client({ name: 'klens-bench', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
async function time(label, call, runs = 50) {
  for (let i = 0; i < 3; i++) await call();
  const took = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const result = await call();
    took.push(performance.now() - start);
    if (result.isError) throw new Error(`${label}: ${JSON.stringify(result.content)}`);
  }
  took.sort((a, b) => a - b);
  console.log(`${label}: p50 ${percentile(took, 50).toFixed(1)} ms, p95 ${percentile(took, 95).toFixed(1)} ms (${runs} calls)`);
}

await time('tools/list', () => client.listTools());
await time('klens_records_read, one page of 20', () =>
  client.callTool({ name: 'klens_records_read', arguments: { cluster: 'local', topic: 'orders', limit: 20 } }));
await client.close();
