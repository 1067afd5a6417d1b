import { selectVariant, stickyValueOf, Topics } from '@flowplane/contracts';
import { MemoryEventBus } from '@flowplane/platform/bus';
import type { ServiceConfig } from '@flowplane/platform/service';
import type { DeploymentRef, UpstreamClients, VariantRef } from './upstream.clients';
import { VariantResolver } from './variant-resolver';

/**
 * A stand-in of the deployments service: `select` runs the contract's selection over the record
 * the way the select route does, `deployment` answers the record; both count their calls.
 */
function fakeDeployments(record: DeploymentRef) {
  const calls = { select: 0, read: 0 };
  const upstream = {
    select: async (_id: string, meta: Record<string, unknown>): Promise<VariantRef> => {
      calls.select++;
      const v = selectVariant(record.variants.map((x) => ({ ...x, weight: x.weight ?? 0 })), stickyValueOf(meta, record.stickyBy));
      if (!v) throw Object.assign(new Error('no eligible variant'), { status: 503 });
      return v;
    },
    deployment: async () => (calls.read++, structuredClone(record)),
  } as unknown as UpstreamClients;
  return { upstream, calls };
}

const settle = () => new Promise((r) => setTimeout(r, 20));
const meta = (sessionId: string) => ({ session_id: sessionId, sessionId });

describe('VariantResolver', () => {
  let bus: MemoryEventBus;
  let resolver: VariantResolver;
  let record: DeploymentRef;
  let calls: { select: number; read: number };
  let config: Record<string, unknown>;

  beforeEach(async () => {
    bus = new MemoryEventBus({ retryDelayMs: 10 });
    record = { id: 'assistant', kind: 'invoke', stickyBy: 'session_id', variants: [{ label: 'stable', flowId: 'a', weight: 1 }] };
    const fake = fakeDeployments(record);
    calls = fake.calls;
    config = { ASSISTANT_DEPLOYMENT_ID: 'assistant', ASSISTANT_DEPLOYMENT_CACHE_MS: 60_000 };
    resolver = new VariantResolver(fake.upstream, bus, config as unknown as ServiceConfig);
    await resolver.onApplicationBootstrap();
  });
  afterEach(async () => {
    await resolver.beforeApplicationShutdown();
    await bus.close();
  });

  it('asks remotely while cold, then selects locally from the cached record', async () => {
    expect((await resolver.select(meta('session-one'))).label).toBe('stable');
    expect(calls).toEqual({ select: 1, read: 1 });
    await settle();
    for (let i = 0; i < 10; i++) await resolver.select(meta(`session-${i}`));
    expect(calls).toEqual({ select: 1, read: 1 });
  });

  it('agrees with the remote selection for many sessions and weights', async () => {
    for (const weights of [[1, 1], [90, 10], [9, 1], [1, 3, 6], [0, 2, 1], [33, 33, 34], [1, 0]]) {
      record.variants = weights.map((w, i) => ({ label: `v${i}`, flowId: `f${i}`, weight: w }));
      resolver.invalidate();
      await resolver.select(meta('warm-up-session'));
      await settle();
      const remoteBefore = calls.select;
      for (let i = 0; i < 2000; i++) {
        const m = meta(`s-${weights.join('-')}-${i}${i % 7 === 0 ? 'é' : ''}`);
        const local = await resolver.select(m);
        calls.select--; // the reference call below is not the resolver's
        const remote = await fakeDeployments(record).upstream.select('assistant', m);
        expect(local.label).toBe(remote.label);
      }
      expect(calls.select).toBe(remoteBefore - 2000);
    }
  });

  it('drops the record at once on deployments.changed of its deployment, and only of its deployment', async () => {
    await resolver.select(meta('session-one'));
    await settle();
    record.variants = [{ label: 'stable', flowId: 'a', weight: 0 }, { label: 'b', flowId: 'b', weight: 1 }];
    await bus.publish(Topics.DeploymentsChanged, { deploymentId: 'other', action: 'updated', kind: 'invoke', disabled: false, revision: 9 });
    await settle();
    expect((await resolver.select(meta('session-two'))).label).toBe('stable');
    await bus.publish(Topics.DeploymentsChanged, { deploymentId: 'assistant', action: 'updated', kind: 'invoke', disabled: false, revision: 2 });
    await settle();
    expect((await resolver.select(meta('session-three'))).label).toBe('b');
    await settle();
    const remote = calls.select;
    expect((await resolver.select(meta('session-four'))).label).toBe('b');
    expect(calls.select).toBe(remote);
  });

  it('reads the record again after ASSISTANT_DEPLOYMENT_CACHE_MS even without an event', async () => {
    config.ASSISTANT_DEPLOYMENT_CACHE_MS = 30;
    await resolver.select(meta('session-one'));
    await settle();
    record.variants = [{ label: 'b', flowId: 'b', weight: 1 }];
    await new Promise((r) => setTimeout(r, 40));
    expect((await resolver.select(meta('session-two'))).label).toBe('b');
  });

  it('keeps asking remotely when the record has no eligible variant or cannot be read', async () => {
    record.variants = [{ label: 'stable', flowId: 'a', weight: 0 }];
    await expect(resolver.select(meta('session-one'))).rejects.toThrow('no eligible variant');
    await settle();
    await expect(resolver.select(meta('session-two'))).rejects.toThrow('no eligible variant');
    expect(calls.select).toBe(2);

    const failing = { select: async () => ({ label: 'stable', flowId: 'a' }), deployment: async () => Promise.reject(new Error('down')) } as unknown as UpstreamClients;
    const r = new VariantResolver(failing, bus, config as unknown as ServiceConfig);
    expect((await r.select(meta('session-three'))).label).toBe('stable');
    await settle();
    expect((await r.select(meta('session-four'))).label).toBe('stable');
  });

  it('never caches with ASSISTANT_DEPLOYMENT_CACHE_MS=0', async () => {
    config.ASSISTANT_DEPLOYMENT_CACHE_MS = 0;
    await resolver.select(meta('session-one'));
    await settle();
    await resolver.select(meta('session-two'));
    expect(calls).toEqual({ select: 2, read: 0 });
  });
});
