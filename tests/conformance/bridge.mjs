#!/usr/bin/env node
// Puts a front end of mcp-veil where the conformance runner (which only speaks streamable HTTP
// to a URL and calls tools by their reference names) can reach it. It has two jobs and changes
// nothing else on the wire:
//
// - `--prefix P`: the gateway exposes tools and prompts as `P<name>` (`ref__test_simple_text`).
//   Requests naming a tool, a prompt or a prompt completion ref get `P` put in front; `tools`
//   and `prompts` in results get it taken off (and `Mcp-Name` follows the body). Keys keep their order; every other field and
//   header passes as is.
// - `--url URL`: an HTTP reverse proxy to URL (for `mcp-veil serve`): method, path, headers
//   (Host, Origin, Mcp-Session-Id, Last-Event-ID ...), status and SSE events pass through, so
//   HTTP-level scenarios still measure `serve` itself.
// - `-- CMD ARGS...`: a streamable-HTTP server (the SDK's own transport, as the reference server
//   uses) relaying every message to a stdio child, one child per session (for `mcp-veil proxy`).
//   Server -> client requests and notifications go on the stream of the client request they
//   belong to (by progress token, else the latest one in flight), as a direct server sends them.
//   The direct baseline of a stdio front end is this bridge in front of the reference server's
//   `--stdio` mode, so the bridge's own HTTP behaviour is the same on both sides. 2026-07-28
//   stateless requests (no session) go to one child shared by all of them (see below).
//
// usage: node bridge.mjs --listen PORT [--prefix P] (--url URL | -- CMD ARGS...)
// Prints `bridge listening on http://127.0.0.1:PORT/mcp` on stderr once it listens.

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const argv = process.argv.slice(2);
const dashdash = argv.indexOf('--');
const opts = dashdash < 0 ? argv : argv.slice(0, dashdash);
const command = dashdash < 0 ? [] : argv.slice(dashdash + 1);
const opt = (name) => {
  const i = opts.indexOf(name);
  return i < 0 ? undefined : opts[i + 1];
};
const listen = Number(opt('--listen') ?? 0);
const prefix = opt('--prefix') ?? '';
const target = opt('--url');
if (!target && command.length === 0) {
  console.error('usage: bridge.mjs --listen PORT [--prefix P] (--url URL | -- CMD ARGS...)');
  process.exit(2);
}

// ---- name mapping ----

function toServer(msg) {
  if (!prefix || !msg || typeof msg !== 'object') return msg;
  const p = msg.params;
  if ((msg.method === 'tools/call' || msg.method === 'prompts/get') && typeof p?.name === 'string') {
    p.name = prefix + p.name;
  }
  if (msg.method === 'completion/complete' && p?.ref?.type === 'ref/prompt' && typeof p.ref.name === 'string') {
    p.ref.name = prefix + p.ref.name;
  }
  return msg;
}

function toClient(msg) {
  if (!prefix || !msg || typeof msg !== 'object') return msg;
  for (const key of ['tools', 'prompts']) {
    const list = msg.result?.[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item?.name === 'string' && item.name.startsWith(prefix)) {
        item.name = item.name.slice(prefix.length);
      }
    }
  }
  return msg;
}

const mapBody = (text, fn) => {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return JSON.stringify(Array.isArray(value) ? value.map(fn) : fn(value));
};

// ---- --url: reverse proxy ----

function reverseProxy() {
  const upstream = new URL(target);
  return http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      const headers = { ...req.headers };
      if (body.length > 0 && String(headers['content-type'] ?? '').includes('json')) {
        const sent = body.toString('utf8');
        body = Buffer.from(mapBody(sent, toServer));
        // 2026-07-28 clients name the tool or prompt in `Mcp-Name` too: renamed the same way
        // (as the value it stands for; one that does not match the body stays a mismatch).
        if (prefix && typeof headers['mcp-name'] === 'string') {
          try {
            const msg = JSON.parse(sent);
            if ((msg.method === 'tools/call' || msg.method === 'prompts/get') && typeof msg.params?.name === 'string') {
              const value = headers['mcp-name'].trim();
              const b64 = /^=\?base64\?(.*)\?=$/i.exec(value);
              const named = b64 ? Buffer.from(b64[1], 'base64').toString('utf8') : value;
              headers['mcp-name'] = named === msg.params.name ? prefix + msg.params.name : prefix + named;
            }
          } catch {}
        }
      }
      if (body.length > 0 || 'content-length' in headers) headers['content-length'] = String(body.length);
      const out = http.request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
        (up) => relayResponse(up, res)
      );
      out.on('error', (e) => {
        console.error(`bridge: upstream error: ${e.code ?? e.message}`);
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      res.on('close', () => out.destroy());
      out.end(body);
    });
  });
}

function relayResponse(up, res) {
  const type = String(up.headers['content-type'] ?? '');
  const headers = { ...up.headers };
  if (type.includes('application/json')) {
    const chunks = [];
    up.on('data', (c) => chunks.push(c));
    up.on('end', () => {
      const body = Buffer.from(mapBody(Buffer.concat(chunks).toString('utf8'), toClient));
      headers['content-length'] = String(body.length);
      res.writeHead(up.statusCode, headers);
      res.end(body);
    });
    return;
  }
  if (type.includes('text/event-stream')) {
    delete headers['content-length'];
    res.writeHead(up.statusCode, headers);
    res.flushHeaders();
    let pending = '';
    up.setEncoding('utf8');
    up.on('data', (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl + 1);
        pending = pending.slice(nl + 1);
        const m = /^data: ?(.*?)(\r?\n)$/s.exec(line);
        res.write(m ? `data: ${mapBody(m[1], toClient)}${m[2]}` : line);
      }
    });
    up.on('end', () => res.end(pending));
    up.on('error', () => res.destroy());
    return;
  }
  res.writeHead(up.statusCode, headers);
  up.pipe(res);
}

// ---- -- CMD: streamable HTTP to a stdio child ----

function stdioRelay() {
  const app = createMcpExpressApp();
  const sessions = {};

  app.all('/mcp', async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    if (!sid && req.method === 'POST') {
      const check = statelessCheck(req);
      if (check.refuse) {
        res.status(400).json({ jsonrpc: '2.0', id: req.body?.id ?? null, error: check.refuse });
        return;
      }
      if (check.stateless) {
        await statelessRelay(req, res);
        return;
      }
    }
    let transport = sid ? sessions[sid] : undefined;
    if (!transport) {
      if (sid || req.method !== 'POST' || req.body?.method !== 'initialize') {
        res.status(sid ? 404 : 400).json({
          jsonrpc: '2.0',
          error: { code: -32000, message: sid ? 'Session not found' : 'Invalid or missing session ID' },
          id: null
        });
        return;
      }
      transport = await openSession(sessions);
    }
    await transport.handleRequest(req, res, req.body);
  });
  return app;
}

// ---- 2026-07-28 stateless requests to a stdio child ----
//
// A request without a session id that carries `MCP-Protocol-Version` or `_meta` (unless it has
// no `_meta` and names a session-era version: an old client) is stateless, as the reference
// server decides over HTTP. The HTTP checks are made here (what the reference server's HTTP
// handler checks: header present, `_meta` complete, header and `_meta` agree, the SEP-2243
// Mcp-Method / Mcp-Name / Mcp-Param-* headers agree with the body); the request then
// goes, with an id of the bridge's own (clients reuse ids across requests), to one child shared
// by every stateless request. Its answer comes back as JSON with the status the reference
// server gives an error (404 unknown method, 400 invalid params, header mismatch, missing client
// capability, unsupported version), or as SSE once a notification for it comes first (by
// progress token or subscription id, else the latest request in flight).

const SESSION_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';

function statelessCheck(req) {
  const body = req.body;
  if (!body || typeof body !== 'object' || Array.isArray(body) || body.method === undefined) return {};
  const header = req.headers['mcp-protocol-version'];
  const meta = body.params?._meta;
  if ((header === undefined && meta === undefined) || (meta === undefined && SESSION_VERSIONS.includes(header))) {
    return {};
  }
  if (header === undefined) return { refuse: { code: -32020, message: 'Missing MCP-Protocol-Version header' } };
  if (!meta || !meta[META_VERSION] || !meta[META_CAPABILITIES]) {
    return { refuse: { code: -32602, message: 'Invalid params: missing _meta or required fields' } };
  }
  if (header !== meta[META_VERSION]) return { refuse: { code: -32020, message: 'Mismatched MCP-Protocol-Version header' } };
  const mismatch = routingHeaderCheck(req.headers, body.method, body.params);
  if (mismatch) return { refuse: { code: -32020, message: mismatch } };
  return { stateless: true };
}

// The standard request headers (SEP-2243), checked as the reference server checks them over
// HTTP: Mcp-Method always, Mcp-Name where the body names a tool, prompt, resource or task,
// Mcp-Param-{H} for the arguments a listed tool maps to headers (`x-mcp-header`).
const paramHeaders = new Map(); // tool -> [[argument, H]], from tools/list results
function learnParamHeaders(msg) {
  const tools = msg?.result?.tools;
  if (!Array.isArray(tools)) return;
  for (const tool of tools) {
    const props = tool?.inputSchema?.properties ?? {};
    const mapped = Object.entries(props)
      .filter(([, def]) => typeof def?.['x-mcp-header'] === 'string')
      .map(([arg, def]) => [arg, def['x-mcp-header']]);
    if (mapped.length > 0 && typeof tool.name === 'string') paramHeaders.set(tool.name, mapped);
  }
}
function headerText(raw, strict) {
  if (typeof raw !== 'string') return undefined;
  const value = raw.trim();
  const b64 = /^=\?base64\?(.*)\?=$/i.exec(value);
  if (!b64) return value;
  if (strict && !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64[1])) return null;
  return Buffer.from(b64[1], 'base64').toString('utf8');
}
function routingHeaderCheck(headers, method, params) {
  if (headers['mcp-method'] === undefined) return 'Missing Mcp-Method header';
  if (headerText(headers['mcp-method']) !== method) return 'Mcp-Method header does not match the body';
  const field = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri',
    'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' }[method];
  const name = field ? params?.[field] : undefined;
  if (typeof name === 'string') {
    if (headers['mcp-name'] === undefined) return 'Missing Mcp-Name header';
    if (headerText(headers['mcp-name']) !== name) return 'Mcp-Name header does not match the body';
  }
  if (method === 'tools/call') {
    for (const [arg, h] of paramHeaders.get(params?.name) ?? []) {
      const value = params?.arguments?.[arg];
      if (value === undefined || value === null) continue;
      const sent = headers[`mcp-param-${h.toLowerCase()}`];
      if (sent === undefined) return `Missing Mcp-Param-${h} header`;
      if (headerText(sent, true) !== String(value)) return `Mcp-Param-${h} header does not match the body`;
    }
  }
  return undefined;
}

function statusOf(msg) {
  const code = msg?.error?.code;
  if (code === -32601) return 404;
  if ([-32602, -32020, -32021, -32022].includes(code)) return 400;
  return 200;
}

let sharedChild;

async function statelessChild() {
  if (sharedChild) return sharedChild;
  const child = new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: 'inherit' });
  const shared = { child, pending: new Map(), byToken: new Map(), next: 1, ready: undefined };
  sharedChild = shared;
  child.onmessage = (msg) => {
    toClient(msg);
    learnParamHeaders(msg);
    if (msg.method === undefined) {
      const entry = shared.pending.get(msg.id);
      if (!entry) return;
      shared.pending.delete(msg.id);
      entry.finish({ ...msg, id: entry.id });
      return;
    }
    if (msg.id !== undefined) return; // no server -> client requests without a session
    const token = msg.params?.progressToken;
    const sub = msg.params?._meta?.[META_SUBSCRIPTION];
    let entry = token !== undefined ? shared.byToken.get(token) : undefined;
    if (!entry && sub !== undefined) {
      entry = shared.pending.get(Number(sub));
      if (entry) msg.params._meta[META_SUBSCRIPTION] = String(entry.id);
    }
    entry ??= [...shared.pending.values()].pop();
    entry?.event(msg);
  };
  child.onclose = () => {
    if (sharedChild === shared) sharedChild = undefined;
    for (const entry of shared.pending.values()) {
      entry.finish({ jsonrpc: '2.0', id: entry.id, error: { code: -32603, message: 'bridge: the child exited' } });
    }
  };
  shared.ready = child.start();
  await shared.ready;
  return shared;
}

async function statelessRelay(req, res) {
  const shared = await statelessChild();
  await shared.ready;
  const body = req.body;
  const ours = shared.next++;
  const sse = String(req.headers.accept ?? '').includes('text/event-stream');
  const token = body.params?._meta?.progressToken;
  const entry = {
    id: body.id,
    streaming: false,
    done: false,
    event(msg) {
      if (this.done || !sse) return;
      if (!this.streaming) {
        this.streaming = true;
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.flushHeaders();
      }
      res.write(`event: message\ndata: ${JSON.stringify(msg)}\n\n`);
    },
    finish(msg) {
      if (this.done) return;
      this.done = true;
      if (token !== undefined) shared.byToken.delete(token);
      if (this.streaming) {
        res.end(`event: message\ndata: ${JSON.stringify(msg)}\n\n`);
      } else {
        res.status(statusOf(msg)).json(msg);
      }
    }
  };
  shared.pending.set(ours, entry);
  if (token !== undefined) shared.byToken.set(token, entry);
  res.on('close', () => {
    entry.done = true;
    shared.pending.delete(ours);
    if (token !== undefined && shared.byToken.get(token) === entry) shared.byToken.delete(token);
  });
  shared.child
    .send(toServer({ ...body, id: ours }))
    .catch((e) => entry.finish({ jsonrpc: '2.0', id: body.id, error: { code: -32603, message: `bridge: ${e.message}` } }));
}

async function openSession(sessions) {
  const events = [];
  const eventStore = {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}::${String(events.length).padStart(8, '0')}`;
      events.push({ eventId, streamId, message });
      return eventId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const streamId = lastEventId.split('::')[0];
      for (const e of events) {
        if (e.streamId === streamId && e.eventId > lastEventId) await send(e.eventId, e.message);
      }
      return streamId;
    }
  };
  const child = new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: 'inherit' });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    eventStore,
    retryInterval: 5000,
    onsessioninitialized: (id) => {
      sessions[id] = transport;
    }
  });
  const inFlight = []; // client request ids, oldest first
  const byToken = new Map(); // progressToken -> client request id

  transport.onmessage = (msg) => {
    if (msg.method !== undefined && msg.id !== undefined) {
      inFlight.push(msg.id);
      const token = msg.params?._meta?.progressToken;
      if (token !== undefined) byToken.set(token, msg.id);
    }
    child.send(toServer(msg)).catch((e) => console.error(`bridge: child send: ${e.message}`));
  };
  child.onmessage = (msg) => {
    toClient(msg);
    if (msg.method === undefined) {
      const i = inFlight.indexOf(msg.id);
      if (i >= 0) inFlight.splice(i, 1);
      for (const [token, id] of byToken) if (id === msg.id) byToken.delete(token);
      transport.send(msg).catch((e) => console.error(`bridge: send: ${e.message}`));
      return;
    }
    const token = msg.params?.progressToken;
    const related = byToken.get(token) ?? inFlight[inFlight.length - 1];
    transport
      .send(msg, related === undefined ? {} : { relatedRequestId: related })
      .catch((e) => console.error(`bridge: send: ${e.message}`));
  };
  transport.onclose = () => {
    if (transport.sessionId) delete sessions[transport.sessionId];
    child.close();
  };
  child.onclose = () => transport.close();
  await child.start();
  await transport.start();
  return transport;
}

const server = target ? reverseProxy() : stdioRelay().listen(listen, '127.0.0.1');
if (target) server.listen(listen, '127.0.0.1');
server.on('listening', () => {
  console.error(`bridge listening on http://127.0.0.1:${server.address().port}/mcp`);
});
