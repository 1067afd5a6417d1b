import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { describeIntegration, hasFile } from '@flowplane/platform/testing';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token } from '../support/http';
import { passThroughFlow, publishFlow } from '../support/flows';

/**
 * A real browser (Chromium, headless) as a web app on another origin uses the platform: CORS
 * preflights with a bearer token, a run streamed as Server-Sent Events through the gateway, headers
 * the app needs to read, and the hub's WebSocket with its Origin check. Node's fetch and `ws` skip
 * all of these browser rules, so only a browser proves them.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A flow whose one step waits on an HTTP call the test answers when it chooses. */
const slowCall = (url: string) => ({
  name: 'Slow call',
  nodes: [
    { id: 'start', name: 'Start', kind: 'start' },
    { id: 'call', name: 'Call', kind: 'action', action_ref: 'svc/http-request', config: { method: 'GET', url } },
    { id: 'end', name: 'End', kind: 'end' },
  ],
  edges: [
    { id: 'e1', from: 'start', to: 'call' },
    { id: 'e2', from: 'call', to: 'end', port: 'out' },
  ],
  meta: { positions: { start: { x: 0, y: 0 }, call: { x: 200, y: 0 }, end: { x: 400, y: 0 } } },
});

/** A static "web app" origin: every path answers an empty HTML page. */
async function appOrigin(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describeIntegration('browser clients (Chromium)', hasFile(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`, { requiredInCi: true }, () => {
  let browser: Browser;
  let platform: Standalone;
  let app: { server: Server; origin: string };
  let other: { server: Server; origin: string };
  let gateway: string;
  let admin: string;
  let slow: Server;
  /** Answers the held calls of the slow upstream. */
  const held: Array<() => void> = [];

  beforeAll(async () => {
    app = await appOrigin();
    other = await appOrigin();
    slow = createServer((_req, res) => {
      held.push(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"answered":true}');
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    platform = await startStandalone({ env: testEnv({ GATEWAY_CORS_ORIGINS: app.origin, WS_ALLOWED_ORIGINS: app.origin, FLOW_HTTP_ALLOW_PRIVATE: 'true' }) });
    // The page reaches the gateway by name, as an app would: a host other than the app's.
    gateway = platform.url;
    admin = await token('alice', ['admin:access']);
    const api = `${gateway}/api/v1`;
    await publishFlow(api, admin, 'browser-echo', passThroughFlow, { name: 'Browser echo' });
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
    await publishFlow(api, admin, 'browser-slow', slowCall(slowUrl), { name: 'Browser slow' });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
  }, 60_000);

  afterAll(async () => {
    // Held upstream calls are answered first, so no run is mid-step while the platform drains.
    for (const answer of held.splice(0)) answer();
    await browser?.close();
    await platform?.close();
    for (const o of [app, other]) o?.server.close();
    slow?.closeAllConnections();
    slow?.close();
  });

  async function pageAt(origin: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    return page;
  }

  it('an allowed origin starts a run with a bearer token and reads its events as a stream, run id included', async () => {
    const page = await pageAt(app.origin);
    try {
      const got = await page.evaluate(
        async ({ url, bearer }) => {
          const res = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'text/event-stream' },
            body: JSON.stringify({ input: { from: 'browser' } }),
          });
          const reader = res.body!.getReader();
          const decoder = new TextDecoder();
          let text = '';
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            text += decoder.decode(value, { stream: true });
          }
          return { status: res.status, type: res.headers.get('content-type'), runId: res.headers.get('x-run-id'), requestId: res.headers.get('x-request-id'), text };
        },
        { url: `${gateway}/api/v1/flows/browser-echo/runs`, bearer: admin },
      );
      expect(got.status).toBe(200);
      expect(got.type).toContain('text/event-stream');
      expect(got.requestId).toMatch(/\S/);
      // The run id must be readable by the app (exposed through CORS) to resume or cancel the run.
      expect(got.runId).toMatch(/^[0-9a-f-]{36}$/);
      const events = got.text
        .split('\n\n')
        .filter((block) => block.includes('event: '))
        .map((block) => block.split('\n').find((l) => l.startsWith('event: '))!.slice(7));
      expect(events[0]).toBe('run.started');
      expect(events.at(-1)).toBe('run.completed');
      expect(got.text).toContain('"from":"browser"');

      // The same app resumes the stream after an event id, as it would after a reload.
      const resumed = await page.evaluate(
        async ({ url, bearer }) => {
          const res = await fetch(url, { headers: { authorization: `Bearer ${bearer}`, 'last-event-id': '1' } });
          return { status: res.status, text: await res.text() };
        },
        { url: `${gateway}/api/v1/runs/${got.runId}/events`, bearer: admin },
      );
      expect(resumed.status).toBe(200);
      expect(resumed.text).not.toContain('event: run.started');
      expect(resumed.text).toContain('event: run.completed');
    } finally {
      await page.close();
    }
  });

  it('delivers each event to the page as it happens, not when the run ends (nothing buffers the stream)', async () => {
    const page = await pageAt(app.origin);
    let seen = '';
    await page.exposeFunction('onChunk', (text: string) => void (seen += text));
    try {
      const reading = page.evaluate(
        async ({ url, bearer }) => {
          const res = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'text/event-stream' },
            body: JSON.stringify({ input: {} }),
          });
          const reader = res.body!.getReader();
          const decoder = new TextDecoder();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            await (globalThis as unknown as { onChunk(t: string): Promise<void> }).onChunk(decoder.decode(value, { stream: true }));
          }
        },
        { url: `${gateway}/api/v1/flows/browser-slow/runs`, bearer: admin },
      );
      // The page has the step's start while the step still waits on its call.
      const until = Date.now() + 10_000;
      while (!(seen.includes('event: node.started') && seen.includes('"nodeId":"call"') && held.length > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toContain('event: run.started');
      expect(seen).toMatch(/event: node.started\ndata: \{[^\n]*"nodeId":"call"/);
      expect(seen).not.toContain('event: run.completed');
      expect(held.length).toBe(1);
      held.shift()!();
      await reading;
      expect(seen).toContain('event: run.completed');
      expect(seen).toContain('"answered":true');
    } finally {
      await page.close();
    }
  });

  it('the browser blocks the same call from an origin that is not allowed (no CORS grant)', async () => {
    const runs = () => platform.services.find((s) => s.name === 'flow-runtime')!.ctx.store!.collection('runs').countDocuments({ flowId: 'browser-echo' });
    const before = await runs();
    const page = await pageAt(other.origin);
    try {
      const outcome = await page.evaluate(
        async ({ url, bearer }) => {
          try {
            const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: '{}' });
            return `answered ${res.status}`;
          } catch (e) {
            return `blocked: ${(e as Error).name}`;
          }
        },
        { url: `${gateway}/api/v1/flows/browser-echo/runs`, bearer: admin },
      );
      expect(outcome).toBe('blocked: TypeError');
      // The preflight failed, so the POST was never sent: no run was started.
      expect(await runs()).toBe(before);
    } finally {
      await page.close();
    }
  });

  it('a browser WebSocket from the allowed origin joins a room through the gateway and gets broadcasts; another origin is refused', async () => {
    const ws = `${gateway.replace('http', 'ws')}/ws/connect?token=${await token('alice')}&room=browser-room`;
    const page = await pageAt(app.origin);
    const stranger = await pageAt(other.origin);
    try {
      // Open the socket in the page and keep every frame it receives on `window`.
      await page.evaluate(
        (url) =>
          new Promise<void>((resolve, reject) => {
            const socket = new WebSocket(url);
            const frames: unknown[] = [];
            Object.assign(globalThis, { frames_: frames, socket_: socket });
            socket.onmessage = (m) => {
              frames.push(JSON.parse(m.data as string));
              if (frames.length === 1) resolve();
            };
            socket.onerror = () => reject(new Error('socket error'));
          }),
        ws,
      );
      const sent = await call(`${gateway}/ws/broadcast/browser-room`, { method: 'POST', bearer: admin, ...json({ hello: 'browser', type: 'greeting' }) });
      expect(sent.status).toBe(200);
      expect(sent.body).toMatchObject({ room: 'browser-room', delivered: 1 });
      await page.waitForFunction(() => (globalThis as unknown as { frames_: unknown[] }).frames_.length >= 2, undefined, { timeout: 5000 });
      const frames = await page.evaluate(() => (globalThis as unknown as { frames_: unknown[] }).frames_);
      expect(frames[0]).toMatchObject({ type: 'subscribed', room: 'browser-room' });
      expect(frames[1]).toMatchObject({ type: 'greeting', room: 'browser-room', data: { hello: 'browser' } });

      // A client never publishes over its socket: the frame gets an error envelope, nobody else sees it.
      await page.evaluate(() => (globalThis as unknown as { socket_: WebSocket }).socket_.send(JSON.stringify({ action: 'publish', room: 'browser-room', data: 'x' })));
      await page.waitForFunction(() => (globalThis as unknown as { frames_: unknown[] }).frames_.length >= 3, undefined, { timeout: 5000 });
      expect((await page.evaluate(() => (globalThis as unknown as { frames_: unknown[] }).frames_))[2]).toMatchObject({ type: 'error' });

      const refused = await stranger.evaluate(
        (url) =>
          new Promise<{ opened: boolean; code: number }>((resolve) => {
            const socket = new WebSocket(url);
            let opened = false;
            socket.onopen = () => (opened = true);
            socket.onclose = (e) => resolve({ opened, code: e.code });
          }),
        ws,
      );
      expect(refused).toEqual({ opened: false, code: 1006 });
    } finally {
      await page.close();
      await stranger.close();
    }
  });
});
