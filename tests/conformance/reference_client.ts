#!/usr/bin/env node
// The conformance reference client for mcp-veil's tests: the client scenarios of
// @modelcontextprotocol/conformance that apply to an MCP client without OAuth, run by the
// TypeScript SDK's `Client`, either directly against the scenario server (HTTP) or through
// `mcp-veil proxy --config` (the gateway, a `url:` upstream = the scenario server) launched as
// its stdio server, so every message of the scenario crosses the layer.
// Taken from the runner's own clients (github.com/modelcontextprotocol/conformance, commit
// c321dd3 = v0.2.0-alpha.11, examples/clients/typescript/everything-client.ts and
// sse-retry-test.ts, MIT): the non-OAuth scenario handlers, changed only to run on Node 22's
// type stripping (no imports from the runner's sources: its three constants are inlined), to
// register the SEP-1034 handler under the runner's scenario name
// (`elicitation-sep1034-client-defaults`) and the SSE retry client under `sse-retry`, to ask for
// the defaults as the SDK now reads them (`elicitation.form.applyDefaults`), and to
// talk to the proxy when MCP_VEIL is set: the SDK client over the stdio transport, the raw
// stateless requests as lines on the proxy's stdin (an error answer stands for the HTTP 400 the
// scenario server would send, the answer's body being the same JSON-RPC error), and the
// gateway's `sc__` prefix put on the tool names a scenario calls by name.
//
// usage: MCP_CONFORMANCE_SCENARIO=<scenario> node reference_client.ts <server-url>
//        MCP_VEIL=<mcp-veil binary>   through `mcp-veil proxy --config` instead of directly
// Needs @modelcontextprotocol/sdk from the repo's node_modules.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  ElicitRequestSchema
} from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

// From the runner's src/types.ts and src/connection/select.ts.
const DRAFT_PROTOCOL_VERSION = '2026-07-28';
const STATELESS_SPEC_VERSIONS = ['2026-07-28'];

const logger = {
  debug: (...args: unknown[]): void => console.log(...args),
  error: (...args: unknown[]): void => console.error(...args)
};

// ---------------------------------------------------------------------------
// Where the client talks to: the scenario server, or mcp-veil proxy in front of it.
// ---------------------------------------------------------------------------

const VEIL = process.env.MCP_VEIL;
/** The gateway's server name for the scenario server (`{server}__{tool}`). */
const SERVER = 'sc';

/** A tool's name as the client sees it. */
function tool(name: string): string {
  return VEIL ? `${SERVER}__${name}` : name;
}

/** The proxy's configuration: one `url:` server; elicitation forms shown as sent (the
 * documented `pass` setting: SEP-1034's defaults are checked verbatim). */
function proxyConfig(serverUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'veil-client-'));
  // Removed when the client exits, however the scenario ends.
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'proxy.yaml');
  writeFileSync(
    path,
    `surfaces: {elicitation: pass}\nservers:\n  ${SERVER}:\n    url: ${JSON.stringify(serverUrl)}\n`
  );
  return path;
}

/** The SDK transport to the scenario server, or to the proxy (stdio). */
function transportFor(
  serverUrl: string,
  options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1] = {}
) {
  if (VEIL) {
    return new StdioClientTransport({
      command: VEIL,
      args: ['proxy', '--config', proxyConfig(serverUrl)],
      stderr: 'inherit'
    });
  }
  return new StreamableHTTPClientTransport(new URL(serverUrl), options);
}

/** Raw JSON-RPC requests for the stateless scenarios: HTTP POSTs directly, lines on the
 * proxy's stdin otherwise (one proxy per scenario run). */
type RawAnswer = { status: number; ok: boolean; body: any };
let proxyChild: ChildProcess | undefined;
const waiting = new Map<string, (body: any) => void>();

function proxyProcess(serverUrl: string): ChildProcess {
  if (proxyChild) return proxyChild;
  const child = spawn(VEIL!, ['proxy', '--config', proxyConfig(serverUrl)], {
    stdio: ['pipe', 'pipe', 'inherit']
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const key = JSON.stringify(msg?.id ?? null);
    const done = waiting.get(key);
    if (done && msg.method === undefined) {
      waiting.delete(key);
      done(msg);
    }
  });
  proxyChild = child;
  return child;
}

async function rawRequest(
  serverUrl: string,
  body: Record<string, unknown>,
  headers: Record<string, string>
): Promise<RawAnswer> {
  if (!VEIL) {
    const response = await fetch(serverUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body)
    });
    if (response.status === 204) {
      return { status: 204, ok: true, body: { id: body.id, result: {} } };
    }
    const text = await response.text();
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // An SSE answer: its last JSON-RPC response.
      const events = text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => {
          try {
            return JSON.parse(l.replace(/^data:\s*/, ''));
          } catch {
            return undefined;
          }
        })
        .filter((e) => e && ('result' in e || 'error' in e));
      parsed = events[events.length - 1];
    }
    return { status: response.status, ok: response.ok, body: parsed };
  }
  const child = proxyProcess(serverUrl);
  const answer = await new Promise<any>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer to ${String(body.method)} in time`)),
      20000
    );
    waiting.set(JSON.stringify(body.id ?? null), (msg) => {
      clearTimeout(timer);
      resolve(msg);
    });
    child.stdin!.write(JSON.stringify(body) + '\n');
  });
  const status = answer?.error ? 400 : 200;
  return { status, ok: status === 200, body: answer };
}

function closeProxy(): void {
  proxyChild?.stdin?.end();
}

// ---------------------------------------------------------------------------
// The scenarios (everything-client.ts, non-OAuth).
// ---------------------------------------------------------------------------

type ScenarioHandler = (serverUrl: string) => Promise<void>;
const scenarioHandlers: Record<string, ScenarioHandler> = {};
function registerScenario(name: string, handler: ScenarioHandler): void {
  scenarioHandlers[name] = handler;
}
function registerScenarios(names: string[], handler: ScenarioHandler): void {
  for (const name of names) scenarioHandlers[name] = handler;
}

const PROTOCOL_VERSION = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const USE_STATELESS_LIFECYCLE = PROTOCOL_VERSION
  ? STATELESS_SPEC_VERSIONS.includes(PROTOCOL_VERSION)
  : false;
const STATELESS_PROTOCOL_VERSION = PROTOCOL_VERSION ?? DRAFT_PROTOCOL_VERSION;
const STATELESS_META_BASE = {
  'io.modelcontextprotocol/clientInfo': {
    name: 'conformance-test-client',
    version: '1.0.0'
  },
  'io.modelcontextprotocol/clientCapabilities': {
    tools: {},
    roots: {},
    sampling: {},
    elicitation: {}
  }
};

let _nextStatelessId = 1;
async function statelessRequest(
  serverUrl: string,
  method: string,
  params: Record<string, unknown> = {}
): Promise<any> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': STATELESS_PROTOCOL_VERSION,
    ...STATELESS_META_BASE,
    ...((params._meta as object | undefined) ?? {})
  };
  const { body } = await rawRequest(
    serverUrl,
    {
      jsonrpc: '2.0',
      id: _nextStatelessId++,
      method,
      params: { ...params, _meta }
    },
    {
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': STATELESS_PROTOCOL_VERSION
    }
  );
  if (body?.error) {
    throw new Error(
      `${method} failed: ${body.error.code} ${body.error.message}`
    );
  }
  return body?.result;
}

async function runBasicClient(serverUrl: string): Promise<void> {
  if (USE_STATELESS_LIFECYCLE) {
    const list = await statelessRequest(serverUrl, 'tools/list');
    logger.debug('Successfully listed tools:', JSON.stringify(list));
    const first = list?.tools?.[0];
    if (first) {
      const result = await statelessRequest(serverUrl, 'tools/call', {
        name: first.name,
        arguments: { a: 2, b: 3 }
      });
      logger.debug('Successfully called tool:', JSON.stringify(result));
    }
    return;
  }
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: {} }
  );
  const transport = transportFor(serverUrl);
  await client.connect(transport);
  const list = await client.listTools();
  const first = list.tools[0];
  if (first) {
    await client.callTool({ name: first.name, arguments: { a: 2, b: 3 } });
  }
  await transport.close();
}
registerScenarios(['initialize', 'tools_call', 'tools-call'], runBasicClient);

async function runListToolsOnlyClient(serverUrl: string): Promise<void> {
  if (USE_STATELESS_LIFECYCLE) {
    const list = await statelessRequest(serverUrl, 'tools/list');
    logger.debug('Successfully listed tools:', JSON.stringify(list));
    return;
  }
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: {} }
  );
  const transport = transportFor(serverUrl);
  await client.connect(transport);
  await client.listTools();
  await transport.close();
}
registerScenario('json-schema-ref-no-deref', runListToolsOnlyClient);

const FOCAL_TOOL_NAME = 'json_schema_2020_12_tool';
const ECHO_TOOL_NAME = 'json_schema_echo';

async function runJsonSchema2020_12PreservationClient(
  serverUrl: string
): Promise<void> {
  if (USE_STATELESS_LIFECYCLE) {
    const list = await statelessRequest(serverUrl, 'tools/list');
    const focal = list?.tools?.find(
      (t: { name: string }) => t.name === tool(FOCAL_TOOL_NAME)
    );
    if (!focal) throw new Error(`Focal tool '${FOCAL_TOOL_NAME}' not advertised`);
    await statelessRequest(serverUrl, 'tools/call', {
      name: tool(ECHO_TOOL_NAME),
      arguments: { schema: focal.inputSchema }
    });
    return;
  }
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: {} }
  );
  const transport = transportFor(serverUrl);
  await client.connect(transport);
  try {
    const list = await client.listTools();
    const focal = list.tools.find((t) => t.name === tool(FOCAL_TOOL_NAME));
    if (!focal) throw new Error(`Focal tool '${FOCAL_TOOL_NAME}' not advertised`);
    await client.callTool({
      name: tool(ECHO_TOOL_NAME),
      arguments: { schema: focal.inputSchema as Record<string, unknown> }
    });
  } finally {
    await transport.close();
  }
}
registerScenario(
  'json-schema-2020-12-preservation',
  runJsonSchema2020_12PreservationClient
);

async function runRequestMetadataClient(serverUrl: string): Promise<void> {
  const meta = STATELESS_META_BASE;
  let activeVersion = STATELESS_PROTOCOL_VERSION;
  const sendRequestWithNegotiation = async (
    method: string,
    requestId: string | number,
    params: any
  ): Promise<any> => {
    const getPayload = (version: string) => ({
      jsonrpc: '2.0',
      id: requestId,
      method,
      params: {
        ...params,
        _meta: {
          ...params?._meta,
          'io.modelcontextprotocol/protocolVersion': version
        }
      }
    });
    const send = (version: string) =>
      rawRequest(serverUrl, getPayload(version), {
        'MCP-Protocol-Version': version
      });
    let response = await send(activeVersion);
    if (response.status === 400 && response.body?.error?.code === -32022) {
      const serverSupported: string[] = response.body.error.data?.supported || [];
      const clientSupported = [
        ...new Set([STATELESS_PROTOCOL_VERSION, DRAFT_PROTOCOL_VERSION])
      ];
      const mutuallySupported = clientSupported.filter((v) =>
        serverSupported.includes(v)
      );
      if (mutuallySupported.length > 0) {
        activeVersion = mutuallySupported[0];
        response = await send(activeVersion);
      }
    }
    if (!response.ok) throw new Error(`${method} failed: ${response.status}`);
    return response.body;
  };
  const discoverResult = await sendRequestWithNegotiation(
    'server/discover',
    'discover-1',
    { _meta: meta }
  );
  logger.debug('Discovered:', JSON.stringify(discoverResult.result));
  const toolsResult = await sendRequestWithNegotiation('tools/list', 2, {
    _meta: meta
  });
  logger.debug('Listed tools:', JSON.stringify(toolsResult.result));
}
registerScenario('request-metadata', runRequestMetadataClient);

async function runElicitationDefaultsClient(serverUrl: string): Promise<void> {
  const client = new Client(
    { name: 'elicitation-defaults-test-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: { applyDefaults: true } } } }
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    logger.debug('Received elicitation request:', JSON.stringify(request.params));
    // Empty content: the SDK applies the schema's defaults.
    return { action: 'accept' as const, content: {} };
  });
  const transport = transportFor(serverUrl);
  await client.connect(transport);
  const tools = await client.listTools();
  const testTool = tools.tools.find(
    (t) => t.name === tool('test_client_elicitation_defaults')
  );
  if (!testTool) {
    throw new Error('Test tool not found: test_client_elicitation_defaults');
  }
  const result = await client.callTool({ name: testTool.name, arguments: {} });
  logger.debug('Tool result:', JSON.stringify(result));
  await transport.close();
}
registerScenarios(
  ['elicitation-defaults', 'elicitation-sep1034-client-defaults'],
  runElicitationDefaultsClient
);

// sse-retry-test.ts: the server closes its SSE stream mid-call and sends the result after the
// client reconnects (SEP-1699's `retry` field).
async function runSseRetryClient(serverUrl: string): Promise<void> {
  const client = new Client(
    { name: 'sse-retry-test-client', version: '1.0.0' },
    { capabilities: {} }
  );
  const transport = transportFor(serverUrl, {
    reconnectionOptions: {
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 10000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 3
    }
  });
  await client.connect(transport);
  const result = await client.request(
    {
      method: 'tools/call',
      params: { name: tool('test_reconnection'), arguments: {} }
    },
    CallToolResultSchema
  );
  logger.debug('Tool call completed:', JSON.stringify(result));
  await transport.close();
}
registerScenario('sse-retry', runSseRetryClient);

// SEP-2322 multi round-trip requests (stateless: no `_meta`, as the runner's client sends).
async function runMRTRClient(serverUrl: string): Promise<void> {
  let nextId = 1;
  async function sendRpc(method: string, params?: Record<string, unknown>) {
    const id = nextId++;
    const body: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (params) body.params = params;
    return (await rawRequest(serverUrl, body, {})).body as {
      id: number;
      result?: Record<string, unknown>;
      error?: { code: number; message: string };
    };
  }
  const accept = (inputRequests: Record<string, unknown>) => {
    const inputResponses: Record<string, unknown> = {};
    for (const [key, req] of Object.entries(inputRequests)) {
      if ((req as { method: string }).method === 'elicitation/create') {
        inputResponses[key] = { action: 'accept', content: { confirmed: true } };
      }
    }
    return inputResponses;
  };
  await sendRpc('tools/list');
  const r1 = await sendRpc('tools/call', {
    name: tool('test_mrtr_echo_state'),
    arguments: {}
  });
  if (r1.result?.resultType === 'input_required') {
    const inputResponses = accept(r1.result.inputRequests as Record<string, unknown>);
    const requestState = r1.result.requestState as string | undefined;
    await sendRpc('tools/call', { name: tool('test_mrtr_unrelated'), arguments: {} });
    const retryParams: Record<string, unknown> = {
      name: tool('test_mrtr_echo_state'),
      arguments: {},
      inputResponses
    };
    if (requestState !== undefined) retryParams.requestState = requestState;
    await sendRpc('tools/call', retryParams);
  }
  const r2 = await sendRpc('tools/call', {
    name: tool('test_mrtr_no_state'),
    arguments: {}
  });
  if (r2.result?.resultType === 'input_required') {
    await sendRpc('tools/call', {
      name: tool('test_mrtr_no_state'),
      arguments: {},
      inputResponses: accept(r2.result.inputRequests as Record<string, unknown>)
    });
  }
  // No resultType: complete, not retried.
  await sendRpc('tools/call', {
    name: tool('test_mrtr_no_result_type'),
    arguments: {}
  });
}
registerScenario('sep-2322-client-request-state', runMRTRClient);

async function main(): Promise<void> {
  const scenarioName = process.env.MCP_CONFORMANCE_SCENARIO;
  const serverUrl = process.argv[2];
  const handler = scenarioName ? scenarioHandlers[scenarioName] : undefined;
  if (!serverUrl || !handler) {
    console.error(
      `usage: MCP_CONFORMANCE_SCENARIO=<scenario> reference_client.ts <server-url>; scenarios: ${Object.keys(scenarioHandlers).sort().join(', ')}`
    );
    process.exit(1);
  }
  try {
    await handler(serverUrl);
    closeProxy();
    process.exit(0);
  } catch (error) {
    console.error('Error:', error);
    closeProxy();
    process.exit(1);
  }
}

main().catch((error) => {
  console.error('Unhandled error:', error);
  process.exit(1);
});
