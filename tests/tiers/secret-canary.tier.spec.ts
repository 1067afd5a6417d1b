import { randomBytes } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { captureLogs } from '../support/capture-logs';
import { call, json, parseSse, tempDir, TEST_SECRET, token, until } from '../support/http';

/**
 * Secret canary tier: one unique value is stored as the apiKey of an llm-chat profile and as the
 * sensitive setting llm/api_key, then flows, runs (completed and failed), the assistant chat,
 * profile duplicates, exports, usage, settings and run events exercise it. The value may travel
 * only in the Authorization header of a model call to the profile's own endpoint (the stub).
 *
 * Scanned: every HTTP response (status line, headers, body) the test reads; every event published
 * on the in-process bus; every log line the platform writes at LOG_LEVEL=debug (pino's fd writes
 * and process stdout/stderr); every outbound request the process opens (undici and node:http
 * diagnostics channels) and every request the stub receives; every file under DATA_DIR at the end.
 */

const CANARY = `canary-${randomBytes(12).toString('hex')}`;

interface Leak {
  where: string;
  what: string;
}

const leaks: Leak[] = [];
const counts = { responses: 0, events: 0, logLines: 0, outbound: 0, stubCalls: 0, files: 0 };

function scan(where: string, what: string, text: string): void {
  const at = text.indexOf(CANARY);
  if (at >= 0) leaks.push({ where, what: `${what}: …${text.slice(Math.max(0, at - 80), at + CANARY.length + 20)}…` });
}

/** An OpenAI-compatible endpoint: records every call; fails the calls queued in `failNext`. */
interface Stub {
  url: string;
  port: number;
  calls: Array<{ authorization?: string; headers: string; body: string }>;
  failNext: Array<{ status: number; body: string }>;
  close(): Promise<void>;
}

async function stub(): Promise<Stub> {
  const calls: Stub['calls'] = [];
  const failNext: Stub['failNext'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const { authorization, ...rest } = req.headers;
      calls.push({ authorization, headers: JSON.stringify(rest), body: raw });
      const fail = failNext.shift();
      if (fail) {
        res.writeHead(fail.status, { 'content-type': 'application/json' });
        res.end(fail.body);
        return;
      }
      let model = 'stub-model';
      try {
        model = (JSON.parse(raw) as { model?: string }).model ?? model;
      } catch {
        /* not JSON: answer anyway */
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model, choices: [{ index: 0, message: { role: 'assistant', content: 'stub reply' }, finish_reason: 'stop' }], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1`, port, calls, failNext, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

type Restore = () => void;

interface Outbound {
  origin: string;
  carriesCanary: boolean;
}

/** Every request this process opens, through undici (fetch and the model clients) or node:http. */
function captureOutbound(onRequest: (r: Outbound) => void): Restore {
  const undici = (msg: unknown) => {
    const req = (msg as { request: { origin?: string | URL; path?: string; headers?: unknown } }).request;
    const headers = Array.isArray(req.headers) ? req.headers.map(String).join('\n') : String(req.headers ?? '');
    onRequest({ origin: String(req.origin ?? ''), carriesCanary: `${req.path ?? ''}\n${headers}`.includes(CANARY) });
  };
  const nodeHttp = (msg: unknown) => {
    const req = (msg as { request: { host?: string; protocol?: string; path?: string; getHeaders(): Record<string, unknown> } }).request;
    const port = (req as unknown as { socket?: { remotePort?: number } }).socket?.remotePort;
    const headers = JSON.stringify(req.getHeaders());
    onRequest({ origin: `${req.protocol ?? 'http:'}//${req.host ?? ''}${port ? `:${port}` : ''}`, carriesCanary: `${req.path ?? ''}\n${headers}`.includes(CANARY) });
  };
  diagnostics.subscribe('undici:request:create', undici);
  diagnostics.subscribe('http.client.request.start', nodeHttp);
  return () => {
    diagnostics.unsubscribe('undici:request:create', undici);
    diagnostics.unsubscribe('http.client.request.start', nodeHttp);
  };
}

describe('tier 3: secret canary', () => {
  let platform: Standalone;
  let model: Stub;
  let dataDir: string;
  let api: string;
  let admin: string;
  let platformPorts: Set<string>;
  const restores: Restore[] = [];
  const outbound: Outbound[] = [];
  let summaryLine = '';

  /** `call` whose answer (status, every header, body) is scanned. */
  const get = async (what: string, url: string, init: RequestInit & { bearer?: string } = {}) => {
    const res = await call(url, init);
    counts.responses++;
    const headers = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
    scan('response', `${init.method ?? 'GET'} ${url.replace(platform.url, '')} (${what})`, `${res.status}\n${headers}\n\n${res.text}`);
    return res;
  };
  const asAdmin = (what: string, p: string, init: RequestInit = {}) => get(what, `${api}${p}`, { bearer: admin, ...init });
  /** A raw fetch (SSE) whose answer is scanned the same way. */
  const stream = async (what: string, url: string, init: RequestInit) => {
    const res = await fetch(url, init);
    const text = await res.text();
    counts.responses++;
    scan('response', `${init.method ?? 'GET'} ${url.replace(platform.url, '')} (${what})`, `${res.status}\n${[...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${text}`);
    return { res, text };
  };

  const chatFlow = (profile: string) => ({
    name: 'Canary chat',
    nodes: [
      { id: 'start', name: 'Start', kind: 'start' },
      { id: 'chat', name: 'Chat', kind: 'action', action_ref: 'svc/llm-chat', config: { profile, systemPrompt: 'Be brief.' } },
      { id: 'end', name: 'End', kind: 'end' },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'chat' },
      { id: 'e2', from: 'chat', to: 'end', port: 'Reply' },
    ],
  });

  beforeAll(async () => {
    model = await stub();
    dataDir = tempDir('secret-canary');
    restores.push(
      captureLogs((line) => {
        counts.logLines++;
        scan('log', 'line', line);
      }),
    );
    restores.push(captureOutbound((r) => outbound.push(r)));
    platform = await startStandalone({
      env: {
        ...process.env,
        PORT: '0',
        STORE: 'embedded',
        DATA_DIR: dataDir,
        SECRETS_KEY: `k1:${randomBytes(32).toString('base64')}`,
        AUTH_JWT_SECRET: TEST_SECRET,
        LOG_LEVEL: 'debug',
        LOG_PRETTY: 'false',
        GATEWAY_RATE_LIMIT: '0',
        ASSISTANT_RATE_LIMIT: '1000',
        LLM_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
        I18N_AUTO_TRANSLATE_DISABLED: 'true',
      },
    });
    // Every event any service publishes goes through this one bus object.
    const bus = platform.bus as { publish: (topic: string, data: unknown, options?: unknown) => Promise<unknown> };
    const publish = bus.publish.bind(bus);
    bus.publish = (topic, data, options) => {
      counts.events++;
      scan('event', topic, JSON.stringify({ data, options }) ?? '');
      return publish(topic, data, options);
    };
    platformPorts = new Set([platform.gateway, ...platform.services].map((s) => String(s.port)));
    api = `${platform.url}/api/v1`;
    admin = await token('canary-admin', ['admin:access', 'profiles:*', 'settings:read', 'settings:write'], { superuser: true });
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
    for (const r of restores.reverse()) r();
    // Printed once stdout is ours again; the figures the tier reports.
    if (summaryLine) console.log(summaryLine);
    if (leaks.length) console.log(`leaks:\n${leaks.map((l) => `  ${l.where} ${l.what}`).join('\n')}`);
    await model?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('stores the canary as a profile apiKey and as the sensitive setting llm/api_key, answering masked', async () => {
    const created = await asAdmin('profile create', '/admin/profiles', {
      method: 'POST',
      ...json({ module: 'llm', kind: 'llm-chat', profileId: 'canary', name: 'Canary', config: { providerID: 'openai-compatible', apiKey: CANARY, baseURL: model.url, model: 'canary-model' } }),
    });
    expect(created.status).toBe(201);
    const put = await asAdmin('settings write', '/admin/settings/llm', { method: 'PUT', ...json({ values: { api_key: CANARY } }) });
    expect(put.status).toBe(200);
  });

  it('reads, lists, resolves and duplicates the profile', async () => {
    expect((await asAdmin('profile get', '/admin/profiles/llm/llm-chat/canary')).status).toBe(200);
    expect((await asAdmin('profile list', '/admin/profiles')).status).toBe(200);
    expect((await asAdmin('profile kinds', '/admin/profiles/kinds')).status).toBe(200);
    expect((await asAdmin('profile kind', '/admin/profiles/kinds/llm-chat')).status).toBe(200);
    await asAdmin('profile resolve', '/admin/profiles/resolve', { method: 'POST', ...json({ module: 'llm', kind: 'llm-chat', profileId: 'canary' }) });
    const dup = await asAdmin('profile duplicate', '/admin/profiles/llm/llm-chat/canary/duplicate', { method: 'POST', ...json({ newProfileId: 'canary-copy', configPatches: { model: 'copy-model' } }) });
    expect(dup.status).toBe(201);
    const dup2 = await asAdmin('profile duplicate (auto id)', '/admin/profiles/llm/llm-chat/canary/duplicate', { method: 'POST', ...json({}) });
    expect(dup2.status).toBe(201);
    expect((await asAdmin('duplicate get', '/admin/profiles/llm/llm-chat/canary-copy')).status).toBe(200);
    // A write that keeps the secret (the masked value sent back) and a failed write naming it.
    const masked = (await asAdmin('profile get', '/admin/profiles/llm/llm-chat/canary-copy')).body.config;
    expect((await asAdmin('profile update', '/admin/profiles/llm/llm-chat/canary-copy', { method: 'PUT', ...json({ name: 'Canary copy', config: masked }) })).status).toBeLessThan(300);
    await asAdmin('profile invalid write', '/admin/profiles', { method: 'POST', ...json({ module: 'llm', kind: 'llm-chat', profileId: 'bad id!', name: 'x', config: { apiKey: CANARY, temperature: 'hot' } }) });
    await asAdmin('profile bad duplicate', '/admin/profiles/llm/llm-chat/canary/duplicate', { method: 'POST', ...json({ newProfileId: 'canary-copy' }) });
  });

  it('reads settings as an admin and publicly', async () => {
    expect((await asAdmin('settings read', '/admin/settings/llm')).status).toBe(200);
    expect((await asAdmin('settings list', '/admin/settings')).status).toBeLessThan(500);
    expect((await get('public setting', `${api}/settings/llm/api_key`)).status).toBe(404);
    await asAdmin('settings invalid write', '/admin/settings/llm', { method: 'PUT', ...json({ values: { api_key: CANARY, nope: CANARY } }) });
  });

  it('runs a flow whose llm-chat node uses the profile: completed, streamed, failed twice, and every read of them', async () => {
    expect((await asAdmin('flow create', '/flows', { method: 'POST', ...json({ id: 'canary-chat', name: 'Canary chat' }) })).status).toBe(201);
    const saved = await asAdmin('version save', '/flows/canary-chat/versions', { method: 'POST', ...json(chatFlow('canary')) });
    expect(saved.status).toBe(201);
    expect((await asAdmin('publish', '/flows/canary-chat/publish', { method: 'POST', ...json({ versionID: saved.body.versionId }) })).status).toBe(200);
    const ok = await asAdmin('run', '/flows/canary-chat/runs', { method: 'POST', ...json({ input: { prompt: 'hello' } }) });
    expect(ok.body).toMatchObject({ status: 'completed', output: { content: 'stub reply' } });
    const runIds: string[] = [ok.body.runId];

    const sse = await stream('run as SSE', `${api}/flows/canary-chat/runs`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ input: { prompt: 'stream' } }) });
    expect(parseSse(sse.text).pop()?.event).toBe('run.completed');
    runIds.push(sse.res.headers.get('x-run-id')!);

    // A provider that echoes the key it was given in its error (as real ones do), then a 500.
    model.failNext.push({ status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${CANARY}. You can find your API key at https://example.test.`, type: 'invalid_request_error' } }) });
    const unauthorized = await asAdmin('run, provider 401', '/flows/canary-chat/runs', { method: 'POST', ...json({ input: { prompt: 'fail once' } }) });
    expect(unauthorized.body).toMatchObject({ status: 'failed' });
    runIds.push(unauthorized.body.runId);
    model.failNext.push(...Array.from({ length: 4 }, () => ({ status: 500, body: `upstream exploded while handling key ${CANARY}` })));
    const broken = await asAdmin('run, provider 500', '/flows/canary-chat/runs', { method: 'POST', ...json({ input: { prompt: 'fail again' } }) });
    expect(broken.status).toBeLessThan(600);
    if (broken.body?.runId) runIds.push(broken.body.runId);
    model.failNext.length = 0;

    for (const runId of runIds) {
      expect((await asAdmin('run get', `/runs/${runId}`)).status).toBe(200);
      await stream('run events', `${api}/runs/${runId}/events`, { headers: { authorization: `Bearer ${admin}`, 'last-event-id': '0' } });
    }
    expect((await asAdmin('runs list', '/runs?flowId=canary-chat')).status).toBe(200);
    // The flow documents: what an export of a flow is.
    expect((await asAdmin('flow get', '/flows/canary-chat')).status).toBe(200);
    expect((await asAdmin('versions', '/flows/canary-chat/versions')).status).toBe(200);
    expect((await asAdmin('version get (export)', `/flows/canary-chat/versions/${saved.body.versionId}`)).status).toBe(200);
    expect((await asAdmin('publishes', '/flows/canary-chat/publishes')).status).toBe(200);
    expect((await asAdmin('flows list', '/flows')).status).toBe(200);
    expect((await asAdmin('deployments', '/deployments')).status).toBe(200);
  }, 60_000);

  it('chats with the assistant on a flow using the profile and reads the transcript', async () => {
    await until(() => call(`${api}/assistant/config`), (r) => r.status === 200, 20_000, 100);
    const reset = await asAdmin('assistant reset', '/admin/assistant/reset?template=minimal', { method: 'POST' });
    expect(reset.status).toBe(200);
    const doc = (await asAdmin('assistant version', `/flows/assistant/versions/${reset.body.versionId}`)).body.document;
    for (const n of doc.nodes) if (n.action_ref === 'svc/llm-chat') n.config = { ...n.config, profile: 'canary' };
    const saved = await asAdmin('assistant save', '/flows/assistant/versions', { method: 'POST', ...json(doc) });
    expect(saved.status).toBe(201);
    expect((await asAdmin('assistant publish', '/flows/assistant/publish', { method: 'POST', ...json({ versionID: saved.body.versionId }) })).status).toBe(200);

    const chat = (message: string, sessionId?: string) =>
      stream('assistant message', `${api}/assistant/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message, ...(sessionId ? { sessionId } : {}) }) });
    const first = await chat('hello assistant');
    const sessionId = first.res.headers.get('x-assistant-session-id')!;
    const frames = parseSse(first.text);
    expect(frames.pop()).toMatchObject({ event: 'message', data: { content: 'stub reply' } });
    model.failNext.push({ status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${CANARY}` } }) });
    await chat('fail once', sessionId);
    model.failNext.length = 0;
    await chat(`my key is not ${CANARY.slice(0, 10)}`, sessionId);

    expect((await get('transcript', `${api}/assistant/chats/me/${sessionId}`)).status).toBe(200);
    await stream('assistant resume', `${api}/assistant/messages/${frames[0].data.runId}/events`, { headers: { 'x-assistant-session-id': sessionId, 'last-event-id': '0' } });
    const list = await asAdmin('assistant chats', '/assistant/chats?limit=5');
    expect(list.status).toBe(200);
    for (const c of list.body.items) await asAdmin('assistant chat', `/assistant/chats/${c.id}`);
    expect((await asAdmin('assistant stats', '/admin/assistant/stats')).status).toBe(200);
    expect((await get('assistant config', `${api}/assistant/config`)).status).toBe(200);
  }, 60_000);

  it('reads the usage ledger, exports and the admin views', async () => {
    expect((await asAdmin('usage', '/admin/llm/usage')).status).toBe(200);
    expect((await asAdmin('usage by profile', '/admin/llm/usage/by?dimension=profile')).status).toBeLessThan(500);
    expect((await asAdmin('prices', '/admin/llm/prices')).status).toBe(200);
    for (const format of ['json', 'xliff', 'po']) await asAdmin(`i18n export ${format}`, `/admin/i18n/export?locale=en&format=${format}`);
    await asAdmin('system', '/admin/system');
    await get('health', `${api}/health`);
    await get('openapi', `${platform.url}/api/docs-json`);
    await get('openapi', `${api}/openapi.json`);
  });

  it('never shows the canary: 0 leaks in responses, events, logs, outbound requests and DATA_DIR', async () => {
    // Let the outboxes and log streams settle before the last scans.
    await new Promise((r) => setTimeout(r, 1500));
    expect(counts.logLines).toBeGreaterThan(0);
    expect(counts.events).toBeGreaterThan(0);

    // Model calls: the key only in the Authorization header, never in a prompt or another header.
    for (const c of model.calls) {
      counts.stubCalls++;
      scan('outbound', 'model call body/headers (stub)', `${c.headers}\n${c.body}`);
    }
    expect(model.calls.filter((c) => c.authorization === `Bearer ${CANARY}`).length).toBeGreaterThan(0);
    // Every other request this process opened: none to anywhere but the stub and the platform's own ports carries it.
    for (const r of outbound) {
      const port = new URL(r.origin || 'http://x').port;
      if (platformPorts.has(port)) continue;
      counts.outbound++;
      if (r.carriesCanary && port !== String(model.port)) leaks.push({ where: 'outbound', what: `request to ${r.origin}` });
    }

    // At rest: sealed, never in clear.
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    for (const f of files(dataDir)) {
      counts.files++;
      scan('data-dir', path.relative(dataDir, f), readFileSync(f, 'latin1'));
    }

    const summary = `secret canary: responses scanned ${counts.responses}, events scanned ${counts.events}, log lines scanned ${counts.logLines}, outbound requests ${counts.outbound} (model calls ${counts.stubCalls}), DATA_DIR files ${counts.files}, leaks ${leaks.length}`;
    summaryLine = summary;
    expect(leaks).toEqual([]);
  });
});
