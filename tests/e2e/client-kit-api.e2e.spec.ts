import { type ChatFrame, createFlowplaneClient, type FetchLike, FlowplaneApiError, type RunFrame, streamChat, streamRun, unwrap } from '@flowplane/client';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { describeIntegration, hasFile } from '@flowplane/platform/testing';
import { STALE_MESSAGE, staleClientFiles } from '../../tools/client/generate';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, testEnv, token, until } from '../support/http';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A fetch whose first event-stream answer is cut after `frames` whole frames, as a dropped
 * connection would cut it; every other request goes through untouched. `requests` records what
 * was asked for.
 */
function droppingFetch(frames: number) {
  const requests: Request[] = [];
  let armed = true;
  const fetchLike: FetchLike = async (request) => {
    requests.push(request.clone());
    const res = await fetch(request);
    if (!armed || !res.headers.get('content-type')?.includes('text/event-stream') || !res.body) return res;
    armed = false;
    const reader = res.body.getReader();
    let text = '';
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        text += new TextDecoder().decode(value);
        const blocks = text.split('\n\n').filter((b) => b.includes('event:'));
        if (blocks.length >= frames) {
          // Pass on exactly the first `frames` frames, then the connection "drops".
          const upTo = text.split('\n\n').reduce((acc, b, i, all) => (all.slice(0, i + 1).filter((x) => x.includes('event:')).length <= frames ? acc + b.length + 2 : acc), 0);
          controller.enqueue(new TextEncoder().encode(text.slice(0, upTo)));
          await reader.cancel();
          controller.error(new TypeError('terminated: other side closed'));
          return;
        }
      },
      cancel: () => reader.cancel(),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: fetchLike, requests };
}

describe('client kit: typed API client and SSE helpers against the platform', () => {
  let platform: Standalone;
  let admin: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ ASSISTANT_RATE_LIMIT: '1000', GATEWAY_CORS_ORIGINS: '*' }) });
    admin = await token('alice', ['admin:access']);
    await until(() => call(`${platform.url}/api/v1/assistant/config`), (r) => r.status === 200, 20_000, 100);
  }, 60_000);
  afterAll(() => platform?.close());

  it('the checked-in typed client matches the services of this tree', async () => {
    const stale = await staleClientFiles();
    if (stale.length) throw new Error(`${STALE_MESSAGE} (${stale.join(', ')} differ)`);
  }, 30_000);

  it('reads health, lists flows and the assistant config through typed per-service clients', async () => {
    const api = createFlowplaneClient({ baseUrl: platform.url, token: async () => admin });
    const health = unwrap(await api.gateway.GET('/api/v1/health'));
    expect(health).toMatchObject({ status: 'ok' });
    const flows = unwrap(await api.flows.GET('/api/v1/flows'));
    expect(flows.map((f) => f.id)).toContain('assistant');
    const config = unwrap(await api.assistant.GET('/api/v1/assistant/config'));
    expect(config).toMatchObject({ flowId: 'assistant', maxMessageChars: 4000 });
  });

  it('a 401 and a 404 are FlowplaneApiError with the code and the X-Request-Id of the answer', async () => {
    const anonymous = createFlowplaneClient({ baseUrl: `${platform.url}/api/v1` });
    const denied = await anonymous.flows.GET('/api/v1/flows');
    expect(denied.response.status).toBe(401);
    const e401 = (() => {
      try {
        unwrap(denied);
      } catch (e) {
        return e;
      }
    })();
    expect(e401).toBeInstanceOf(FlowplaneApiError);
    expect(e401).toMatchObject({ status: 401, statusCode: 401, code: 'UNAUTHORIZED', requestId: denied.response.headers.get('x-request-id') });

    const api = createFlowplaneClient({ baseUrl: platform.url, token: admin, requestId: () => 'client-kit-e2e-404' });
    const missing = await api.flows.GET('/api/v1/flows/{id}', { params: { path: { id: 'no-such-flow' } } });
    expect(missing.response.headers.get('x-request-id')).toBe('client-kit-e2e-404');
    expect(() => unwrap(missing)).toThrow(FlowplaneApiError);
    expect(missing.error).toMatchObject({ statusCode: 404, code: expect.stringMatching(/NOT_FOUND$/), requestId: 'client-kit-e2e-404' });
  });

  it('streamChat yields session, token and message frames and the session id; the next turn continues the chat', async () => {
    const api = createFlowplaneClient({ baseUrl: platform.url, token: admin });
    unwrap(await api.assistant.POST('/api/v1/admin/assistant/reset', { params: { query: { template: 'default-stream' } } }));
    const chat = await streamChat({ baseUrl: platform.url, message: 'stream this please' });
    expect(chat.sessionId).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    const frames: ChatFrame[] = [];
    for await (const f of chat) frames.push(f);
    expect(frames[0]).toMatchObject({ event: 'session', data: { sessionId: chat.sessionId, flowId: 'assistant', variant: 'stable' } });
    const tokens = frames.flatMap((f) => (f.event === 'token' ? [f.data.chunk] : []));
    expect(tokens.length).toBeGreaterThan(1);
    const last = frames.at(-1)!;
    expect(last.event).toBe('message');
    expect(last.event === 'message' && last.data).toMatchObject({ status: 'completed', content: tokens.join('') });

    const next = await streamChat({ baseUrl: platform.url, message: 'and again', sessionId: chat.sessionId });
    expect(next.sessionId).toBe(chat.sessionId);
    for await (const f of next) void f;
    const transcript = unwrap(await api.assistant.GET('/api/v1/assistant/chats/me/{sessionId}', { params: { path: { sessionId: chat.sessionId } } }));
    expect(transcript.messages).toHaveLength(4);
  });

  it('after a forced drop streamChat resumes with Last-Event-ID and yields only the later frames', async () => {
    const cut = droppingFetch(2);
    const chat = await streamChat({ baseUrl: platform.url, message: 'drop me halfway', fetch: cut.fetch, retryDelayMs: 20 });
    const frames: ChatFrame[] = [];
    for await (const f of chat) frames.push(f);
    const resumes = cut.requests.filter((r) => r.method === 'GET');
    expect(resumes).toHaveLength(1);
    expect(resumes[0].url).toBe(`${platform.url}/api/v1/assistant/messages/${chat.runId}/events`);
    expect(resumes[0].headers.get('last-event-id')).toBe(String(frames[1].id));
    expect(resumes[0].headers.get('x-assistant-session-id')).toBe(chat.sessionId);
    const ids = frames.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(frames.map((f) => f.event)).toEqual(['session', ...frames.slice(1, -1).map(() => 'token'), 'message']);
    const last = frames.at(-1)!;
    expect(last.event === 'message' && last.data.content).toBe(frames.flatMap((f) => (f.event === 'token' ? [f.data.chunk] : [])).join(''));
  });

  it('streamChat refuses bad input before the stream with a typed 400', async () => {
    const err = await streamChat({ baseUrl: platform.url, message: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FlowplaneApiError);
    expect(err).toMatchObject({ status: 400, code: expect.any(String), requestId: expect.any(String) });
  });

  it('streamRun streams a flow run through the gateway and follows it again by run id', async () => {
    const run = await streamRun({ baseUrl: platform.url, token: admin, flowId: 'assistant', input: { message: 'hi', messages: [{ role: 'user', content: 'hi' }] } });
    expect(run.runId).toEqual(expect.any(String));
    const frames: RunFrame[] = [];
    for await (const f of run) frames.push(f);
    expect(frames[0].event).toBe('run.started');
    expect(frames.at(-1)!.event).toBe('run.completed');
    const replay: RunFrame[] = [];
    for await (const f of await streamRun({ baseUrl: platform.url, token: admin, runId: run.runId, lastEventId: frames[0].id })) replay.push(f);
    expect(replay).toEqual(frames.slice(1));
  });

  describeIntegration('in Chromium, as a web app on another origin bundles it', hasFile(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`, { requiredInCi: true }, () => {
    let browser: Browser;
    let app: Server;
    let appOrigin: string;

    beforeAll(async () => {
      // The kit as a web app's bundler makes it: one ES module, dependencies included.
      const kit = execFileSync(process.execPath, [path.join(__dirname, '../../tools/client/bundle-browser.mjs')], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
      app = createServer((req, res) => {
        if (req.url === '/kit.js') {
          res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
          return res.end(kit);
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><title>app</title>');
      });
      await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
      appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
    }, 30_000);
    afterAll(async () => {
      await browser?.close();
      app?.close();
    });

    it('calls typed routes, reads typed errors and streams a chat that survives a dropped connection', async () => {
      const api = createFlowplaneClient({ baseUrl: platform.url, token: admin });
      unwrap(await api.assistant.POST('/api/v1/admin/assistant/reset', { params: { query: { template: 'default-stream' } } }));
      const page = await browser.newPage();
      try {
        await page.goto(`${appOrigin}/`);
        // A module script, as an app loads it (a dynamic import here would be compiled to require by SWC).
        await page.addScriptTag({ type: 'module', content: "import * as kit from '/kit.js'; window.flowplaneKit = kit;" });
        await page.waitForFunction(() => 'flowplaneKit' in globalThis);
        const got = await page.evaluate(
          async ({ gateway, bearer }) => {
            const kit = (globalThis as unknown as { flowplaneKit: any }).flowplaneKit;
            const api = kit.createFlowplaneClient({ baseUrl: gateway, token: () => bearer });
            const flows = kit.unwrap(await api.flows.GET('/api/v1/flows')) as Array<{ id: string }>;
            let denied: Record<string, unknown> = {};
            const anonymous = await kit.createFlowplaneClient({ baseUrl: gateway }).flows.GET('/api/v1/flows');
            try {
              kit.unwrap(anonymous);
            } catch (e: any) {
              denied = { isApiError: e instanceof kit.FlowplaneApiError, status: e.status, code: e.code, requestId: e.requestId, header: anonymous.response.headers.get('x-request-id') };
            }
            // The first event stream is cut after two frames, as a dropped connection would cut it.
            const asked: Array<{ method: string; url: string; lastEventId: string | null }> = [];
            let armed = true;
            const dropping = async (request: Request) => {
              asked.push({ method: request.method, url: request.url, lastEventId: request.headers.get('last-event-id') });
              const res = await fetch(request);
              if (!armed || !res.body) return res;
              armed = false;
              const reader = res.body.getReader();
              let text = '';
              const body = new ReadableStream<Uint8Array>({
                async pull(controller) {
                  const { done, value } = await reader.read();
                  if (done) return controller.close();
                  text += new TextDecoder().decode(value);
                  const frames = text.split('\n\n').filter((b) => b.includes('event:'));
                  if (frames.length < 2) return;
                  controller.enqueue(new TextEncoder().encode(frames.slice(0, 2).join('\n\n') + '\n\n'));
                  await reader.cancel();
                  controller.error(new TypeError('network error'));
                },
              });
              return new Response(body, { status: res.status, headers: res.headers });
            };
            const chat = await kit.streamChat({ baseUrl: gateway, message: 'hello from a browser', fetch: dropping, retryDelayMs: 20 });
            const frames: Array<{ event: string; id: number; data: Record<string, unknown> }> = [];
            for await (const f of chat) frames.push(f);
            return { flows: flows.map((f) => f.id), denied, sessionId: chat.sessionId, frames, asked };
          },
          { gateway: platform.url, bearer: admin },
        );
        expect(got.flows).toContain('assistant');
        expect(got.denied).toEqual({ isApiError: true, status: 401, code: 'UNAUTHORIZED', requestId: got.denied.header, header: expect.any(String) });
        // X-Assistant-Session-Id is exposed to the page through CORS.
        expect(got.sessionId).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
        const events = got.frames.map((f) => f.event);
        expect(events[0]).toBe('session');
        expect(events.at(-1)).toBe('message');
        const ids = got.frames.map((f) => f.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        // The resume crossed CORS with Last-Event-ID and X-Assistant-Session-Id.
        expect(got.asked.filter((a) => a.method === 'GET')).toEqual([{ method: 'GET', url: expect.stringContaining('/api/v1/assistant/messages/'), lastEventId: String(ids[1]) }]);
        const text = got.frames.filter((f) => f.event === 'token').map((f) => f.data.chunk).join('');
        expect(got.frames.at(-1)!.data).toMatchObject({ status: 'completed', content: text });
      } finally {
        await page.close();
      }
    });
  });
});
