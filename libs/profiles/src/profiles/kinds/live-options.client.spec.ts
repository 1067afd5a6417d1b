import { Logger } from '@nestjs/common';
import { ServiceClient } from '@flowplane/contracts';
import type { ServiceClients } from '@flowplane/platform/service';
import { TEST_KIND, TEST_SETTINGS } from '../testing/profiles.fixtures';
import { KindRegistry } from './kind.registry';
import { type LiveOptionsConfig, LiveOptionsClient } from './live-options.client';

type Answer = { status: number; body?: unknown } | 'refuse' | 'hang';

/** ServiceClients whose flow-runtime client talks to a scripted fetch. */
function fakeClients(answer: (url: string) => Answer) {
  const calls: Array<{ url: string; timeoutMs?: number; retries?: number }> = [];
  const clients = {
    for: (service: string, options: { timeoutMs?: number; retries?: number } = {}) =>
      new ServiceClient({
        service,
        baseUrl: 'http://flow-runtime.test',
        ...options,
        fetch: (async (url: string, init: RequestInit) => {
          calls.push({ url, ...options });
          const a = answer(url);
          if (a === 'refuse') throw new TypeError('fetch failed');
          if (a === 'hang') {
            return new Promise((_resolve, reject) =>
              init.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
            );
          }
          return new Response(a.body === undefined ? '' : JSON.stringify(a.body), {
            status: a.status,
            headers: { 'content-type': 'application/json' },
          });
        }) as typeof fetch,
      }),
  };
  return { clients: clients as unknown as ServiceClients, calls };
}

describe('LiveOptionsClient', () => {
  let clock = 0;
  const config = (over: Partial<LiveOptionsConfig> = {}): Partial<LiveOptionsConfig> => ({
    now: () => clock,
    ttlMs: 1000,
    failureTtlMs: 100,
    timeoutMs: 50,
    ...over,
  });

  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(new Logger()));
  beforeEach(() => {
    clock = 0;
  });

  it('reads a string array from flow-runtime with a short timeout and no retries', async () => {
    const { clients, calls } = fakeClients(() => ({ status: 200, body: ['local', 'openai', 'local'] }));
    const live = new LiveOptionsClient(clients, config());
    expect(await live.options('llm.providers')).toEqual({ available: true, options: ['local', 'openai'] });
    expect(calls).toEqual([
      { url: 'http://flow-runtime.test/internal/options/llm.providers', timeoutMs: 50, retries: 0 },
    ]);
  });

  it('also accepts {options: [...]}', async () => {
    const { clients } = fakeClients(() => ({ status: 200, body: { options: ['guard-a'] } }));
    expect(await new LiveOptionsClient(clients, config()).options('guard.guards')).toEqual({
      available: true,
      options: ['guard-a'],
    });
  });

  it('marks the source unavailable with a reason when the route is missing, the service is down, slow, or answers nonsense', async () => {
    const reasons: Record<string, string> = {};
    for (const [name, answer] of Object.entries<Answer>({
      missing: { status: 404, body: { statusCode: 404 } },
      down: 'refuse',
      slow: 'hang',
      nonsense: { status: 200, body: { providers: 'local' } },
      mixed: { status: 200, body: ['local', 3] },
    })) {
      const result = await new LiveOptionsClient(fakeClients(() => answer).clients, config()).options(
        'llm.providers',
      );
      expect(result.available).toBe(false);
      reasons[name] = result.available ? '' : result.reason;
    }
    expect(reasons).toEqual({
      missing: 'flow-runtime answered 404',
      down: 'flow-runtime is unreachable',
      slow: 'flow-runtime did not answer within 50 ms',
      nonsense: 'flow-runtime answered something other than a list of option ids',
      mixed: 'flow-runtime answered something other than a list of option ids',
    });
  });

  it('caches answers for ttlMs and failures for failureTtlMs, and shares one call between concurrent askers', async () => {
    let answer: Answer = { status: 503 };
    const { clients, calls } = fakeClients(() => answer);
    const live = new LiveOptionsClient(clients, config());
    const [a, b] = await Promise.all([live.options('llm.providers'), live.options('llm.providers')]);
    expect(a).toBe(b);
    expect(calls).toHaveLength(1);
    answer = { status: 200, body: ['local'] };
    clock = 99;
    expect((await live.options('llm.providers')).available).toBe(false);
    clock = 100;
    expect(await live.options('llm.providers')).toEqual({ available: true, options: ['local'] });
    answer = { status: 200, body: ['local', 'openai'] };
    clock = 1099;
    expect(await live.options('llm.providers')).toEqual({ available: true, options: ['local'] });
    clock = 1100;
    expect(await live.options('llm.providers')).toEqual({ available: true, options: ['local', 'openai'] });
    expect(calls).toHaveLength(3);
  });

  it('asks only for fields whose options are not inline, and only the wanted keys', async () => {
    const { clients, calls } = fakeClients(() => ({ status: 200, body: ['x'] }));
    const live = new LiveOptionsClient(clients, config());
    const kind = new KindRegistry([TEST_KIND], TEST_SETTINGS).require('test', 'test-kind');
    expect([...(await live.forKind(kind)).keys()]).toEqual(['provider']);
    expect((await live.forKind(kind, ['endpoint', 'guard'])).size).toBe(0);
    expect(calls.map((c) => c.url)).toEqual(['http://flow-runtime.test/internal/options/llm.providers']);
  });
});
