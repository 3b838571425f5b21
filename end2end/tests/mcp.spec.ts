import { test, expect } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { kafkaEndOffsets, kafkaMetadata, runDevPython } from './helpers';
import { unique } from './authz-matrix';

// The MCP listener of the suite's klens (end2end/run gives it a ceiling of RECORDS,
// TOPIC_CONFIGS and the three MCP writes, on local and local-ro, behind a secret), through the
// official TypeScript SDK and the official Python SDK. Effects are checked with Kafka's own view.
const URL_ = process.env.KLENS_MCP_URL ?? 'http://127.0.0.1:18095/mcp';
const SECRET = process.env.KLENS_MCP_SECRET ?? 'e2e-mcp-secret';

async function connect(secret = SECRET): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(URL_), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
  const client = new Client({ name: 'klens-e2e', version: '1' });
  await client.connect(transport);
  return client;
}

/** The JSON between a result's markers. */
function data(result: unknown): any {
  const text = (result as { content: { type: string; text: string }[] }).content[0].text;
  const open = text.indexOf('\n<klens-data-') + 1;
  const end = text.indexOf('>', open);
  const tag = text.slice(open + '<klens-data-'.length, end);
  const close = text.lastIndexOf(`</klens-data-${tag}>`);
  return JSON.parse(text.slice(end + 1, close));
}

test('the TypeScript SDK lists the ceiling\'s tools, reads, writes and is refused where it should be', async () => {
  const client = await connect();
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  expect(names).toContain('klens_records_read');
  expect(names).toContain('klens_topic_create');
  expect(names).not.toContain('klens_acls_list');
  expect(names).not.toContain('klens_schema_get');
  expect(names).toHaveLength(14);
  const read = tools.find((t) => t.name === 'klens_records_read');
  expect(read?.annotations?.readOnlyHint).toBe(true);
  expect(tools.find((t) => t.name === 'klens_produce')?.annotations?.destructiveHint).toBe(false);

  const list = data(await client.callTool({ name: 'klens_topics_list', arguments: { cluster: 'local', filter: 'orders' } }));
  expect(list.topics.map((t: { name: string }) => t.name)).toContain('orders');
  const page = data(await client.callTool({ name: 'klens_records_read', arguments: { cluster: 'local', topic: 'orders', limit: 5 } }));
  expect(page.records.length).toBeGreaterThan(0);
  expect(page.records.length).toBeLessThanOrEqual(5);

  // Every read tool the ceiling holds answers; the ones outside it are refused by name.
  for (const [name, args] of [
    ['klens_clusters_list', {}],
    ['klens_topic_describe', { cluster: 'local', topic: 'orders' }],
    ['klens_groups_list', { cluster: 'local' }],
    ['klens_group_describe', { cluster: 'local', group: 'billing-service' }],
    ['klens_brokers_list', { cluster: 'local', broker: 1 }],
    ['klens_subjects_list', { cluster: 'local' }],
    ['klens_record_get', { cluster: 'local', topic: 'orders', partition: 0, offset: 0 }],
    ['klens_search', { q: 'orders' }],
    ['klens_access_explain', { cluster: 'local-ro' }],
    ['klens_schema_register', { cluster: 'local', subject: 'payments-avro-value', schema: '{"type": "string"}', dry_run: true }],
  ] as const) {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  }
  const group = data(await client.callTool({ name: 'klens_group_describe', arguments: { cluster: 'local', group: 'billing-service' } }));
  expect(Array.isArray(group.findings)).toBe(true);
  const explained = data(await client.callTool({ name: 'klens_access_explain', arguments: { cluster: 'local-ro', tool: 'klens_produce' } }));
  expect(explained.tools[0]).toMatchObject({ allowed: false });
  expect(explained.tools[0].why_not).toMatchObject({ code: 'READ_ONLY_CLUSTER' });
  const schemaText = await client.callTool({ name: 'klens_schema_get', arguments: { cluster: 'local', subject: 'payments-avro-value' } });
  expect(data(schemaText)).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'SCHEMA_TEXT' });

  // A write, checked by Kafka's own metadata and offsets.
  const topic = unique('e2e-mcp');
  const dry = await client.callTool({ name: 'klens_topic_create', arguments: { cluster: 'local', topic, partitions: 2, dry_run: true } });
  expect(dry.isError).toBeFalsy();
  expect(kafkaMetadata().topics.some((t) => t.topic === topic)).toBe(false);
  const made = await client.callTool({ name: 'klens_topic_create', arguments: { cluster: 'local', topic, partitions: 2 } });
  expect(made.isError, JSON.stringify(made)).toBeFalsy();
  expect(kafkaMetadata().topics.find((t) => t.topic === topic)?.partitions).toHaveLength(2);
  const written = data(await client.callTool({ name: 'klens_produce', arguments: { cluster: 'local', topic, partition: 1, value: { encoding: 'text', data: 'from an agent' } } }));
  expect(written.offset).toBe(0);
  expect(kafkaEndOffsets(topic).get(1)).toBe(1);

  // Refusals: a read-only cluster, a privilege outside the ceiling, a cluster outside it.
  const ro = await client.callTool({ name: 'klens_produce', arguments: { cluster: 'local-ro', topic, value: { encoding: 'text', data: 'x' } } });
  expect(ro.isError).toBe(true);
  expect(data(ro).code).toBe('READ_ONLY_CLUSTER');
  const acls = await client.callTool({ name: 'klens_acls_list', arguments: { cluster: 'local' } });
  expect(acls.isError).toBe(true);
  expect(data(acls)).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'ACLS' });
  const outside = await client.callTool({ name: 'klens_topics_list', arguments: { cluster: 'offline' } });
  expect(data(outside).code).toBe('UNKNOWN_CLUSTER');
  expect(kafkaEndOffsets(topic).get(1)).toBe(1);
  await client.close();
});

test('without the secret the TypeScript SDK cannot connect', async () => {
  await expect(connect('wrong')).rejects.toThrow(/401|Unauthorized|UNAUTHENTICATED/i);
});

test('the Python SDK lists tools, reads, writes and sees a refusal', async () => {
  const topic = unique('e2e-mcp-py');
  const script = `
import asyncio, json, sys
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

url, secret, topic = sys.argv[1], sys.argv[2], sys.argv[3]

def inside(result):
    text = result.content[0].text
    start = text.index("\\n<klens-data-") + 1
    end = text.index(">", start)
    tag = text[start + len("<klens-data-"):end]
    return json.loads(text[end + 1:text.rindex("</klens-data-" + tag + ">")])

async def main():
    async with httpx2.AsyncClient(headers={"Authorization": "Bearer " + secret}) as http:
        async with streamable_http_client(url, http_client=http, terminate_on_close=False) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = [t.name for t in (await session.list_tools()).tools]
                groups = inside(await session.call_tool("klens_groups_list", {"cluster": "local"}))
                made = await session.call_tool("klens_topic_create", {"cluster": "local", "topic": topic, "partitions": 1})
                refused = await session.call_tool("klens_schema_get", {"cluster": "local", "subject": "payments-avro-value"})
                print(json.dumps({
                    "tools": tools,
                    "groups": [g["group"] for g in groups["groups"]],
                    "made": not made.is_error,
                    "refused": inside(refused) if refused.is_error else None,
                }))

asyncio.run(main())
`;
  const out = JSON.parse(runDevPython(script, [URL_, SECRET, topic]));
  expect(out.tools).toHaveLength(14);
  expect(out.groups.length).toBeGreaterThan(0);
  expect(out.made).toBe(true);
  expect(kafkaMetadata().topics.some((t) => t.topic === topic)).toBe(true);
  expect(out.refused).toMatchObject({ code: 'MISSING_PRIVILEGE', privilege: 'SCHEMA_TEXT' });
});
