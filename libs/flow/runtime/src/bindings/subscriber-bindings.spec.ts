import type { ServiceConfig } from '@flowplane/platform/service';
import { Logger } from '@nestjs/common';
import type { EventBus, Subscription } from '@flowplane/platform/bus';
import type { EventSourcesService } from '../event-sources/event-sources.service';
import type { FlowsService } from '../flows/flows.service';
import type { RunsService } from '../runs/runs.service';
import type { BoundDeployment } from './deployments.client';
import type { DeploymentTable } from './deployment-table.service';
import type { FlowDeployments } from './flow-deployments.service';
import { SubscriberBindings } from './subscriber-bindings.service';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A subscriber deployment of flow `audit` on topic `audit.events`, and just enough around it. */
function rig() {
  let deployment: BoundDeployment | undefined = {
    id: 'audit-sub',
    name: 'Audit',
    kind: 'subscriber',
    labels: { 'x-event': 'audit.events' },
    variants: [{ label: 'stable', flowId: 'audit', weight: 1 }],
    revision: 1,
  } as unknown as BoundDeployment;
  let changed!: (ids: ReadonlySet<string>) => Promise<void>;
  const live = new Set<Subscription>();
  const subscribed: string[] = [];
  const bus = {
    // Joining a group takes a while; that is when a second bind used to slip in.
    subscribe: async (topics: string[], options: { groupId: string; concurrency?: number }) => {
      subscribed.push(`${topics.join(',')} as ${options.groupId}${options.concurrency ? `, ${options.concurrency} partitions at once` : ''}`);
      await sleep(30);
      const sub: Subscription = { groupId: options.groupId, topics, stop: async () => void live.delete(sub) } as unknown as Subscription;
      live.add(sub);
      return sub;
    },
    stats: async () => ({ kind: 'memory', consumers: [], counters: {} }),
  } as unknown as EventBus;
  const table = {
    onChange: (listener: typeof changed) => (changed = listener),
    get: (id: string) => (deployment?.id === id ? deployment : undefined),
    settled: async () => undefined,
    subscribersOf: () => (deployment ? [deployment] : []),
  } as unknown as DeploymentTable;
  const flows = {
    get: async () => ({ published: { versionId: 'audit@v1' } }),
    getVersion: async () => ({ flowId: 'audit', document: { nodes: [{ id: 'start', kind: 'start' }] } }),
  } as unknown as FlowsService;
  const sources = { attach: () => undefined, sync: async () => undefined } as unknown as EventSourcesService;
  const bindings = new SubscriberBindings({ FLOW_EVENT_CONCURRENCY: 3 } as unknown as ServiceConfig, bus, table, flows, {} as RunsService, sources, { settled: async () => undefined } as unknown as FlowDeployments);
  return {
    bindings,
    live,
    subscribed,
    change: (ids: string[]) => changed(new Set(ids)),
    disable: () => {
      deployment = { ...deployment!, disabled: true, revision: 2 } as BoundDeployment;
    },
  };
}

describe('SubscriberBindings', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

  it('binds a deployment once when two changes arrive while its consumer is still joining', async () => {
    const r = rig();
    await Promise.all([r.change(['audit-sub']), r.change(['audit-sub'])]);
    expect(r.subscribed).toEqual(['audit.events as deployment-audit-sub, 3 partitions at once']);
    expect(r.live.size).toBe(1);
  });

  it('stops the consumer of a deployment disabled while it was joining: nothing is left consuming', async () => {
    const r = rig();
    const joining = r.change(['audit-sub']);
    await sleep(5);
    r.disable();
    await Promise.all([joining, r.change(['audit-sub'])]);
    expect(r.live.size).toBe(0);
  });

  it('lets a subscription still being made finish, then stops it, on shutdown', async () => {
    const r = rig();
    const joining = r.change(['audit-sub']);
    await sleep(5);
    await r.bindings.beforeApplicationShutdown();
    await joining;
    expect(r.live.size).toBe(0);
  });
});
