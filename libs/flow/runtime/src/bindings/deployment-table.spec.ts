import type { DeploymentsChangedPayload } from '@flowplane/contracts';
import type { EventBus } from '@flowplane/platform/bus';
import type { BoundDeployment, DeploymentsClient } from './deployments.client';
import { DeploymentTable } from './deployment-table.service';

const route = (revision: number, path = '/orders'): BoundDeployment => ({ id: 'orders', name: 'Orders', kind: 'route', disabled: false, labels: {}, variants: [{ label: 'stable', flowId: 'f', weight: 1 }], route: { method: 'GET', path }, revision });

const event = (action: DeploymentsChangedPayload['action'], revision: number, path = '/orders'): DeploymentsChangedPayload => ({
  deploymentId: 'orders',
  action,
  kind: 'route',
  disabled: false,
  revision,
  ...(action === 'deleted' ? {} : { variants: [{ label: 'stable', flowId: 'f', weight: 1 }], labels: {}, route: { method: 'GET', path } }),
});

describe('deployment table', () => {
  const make = (answer: () => Promise<BoundDeployment[]>) => new DeploymentTable({} as EventBus, { all: answer } as unknown as DeploymentsClient);

  it('takes a deployment created again under a deleted id at once (its revisions start over)', async () => {
    const table = make(async () => []);
    table.apply(event('created', 1));
    table.apply(event('updated', 2));
    table.apply(event('deleted', 3));
    expect(table.get('orders')).toBeUndefined();
    table.apply(event('created', 1, '/orders/again'));
    expect(table.get('orders')?.route).toEqual({ method: 'GET', path: '/orders/again' });
    // A late duplicate of the old life's update is still dropped.
    table.apply(event('updated', 1, '/stale'));
    expect(table.get('orders')?.route?.path).toBe('/orders/again');
    await table.settled();
  });

  it('keeps what an event said over a full read that was answered before it', async () => {
    let release!: (v: BoundDeployment[]) => void;
    const table = make(() => new Promise((r) => (release = r)));
    table.apply(event('created', 1));
    const reading = table.sync();
    // While the read is under way the deployment is deleted and made again.
    table.apply(event('deleted', 2));
    table.apply(event('created', 1, '/orders/new'));
    release([route(2, '/orders/old')]);
    expect(await reading).toBe(true);
    expect(table.get('orders')?.route?.path).toBe('/orders/new');
    await table.settled();
  });

  it('drops a deployment a full read no longer lists, and notifies listeners of what changed', async () => {
    let list = [route(1)];
    const table = make(async () => list);
    const seen: string[][] = [];
    table.onChange((ids) => void seen.push([...ids]));
    await table.sync();
    list = [];
    await table.sync();
    await table.settled();
    expect(table.get('orders')).toBeUndefined();
    expect(seen).toEqual([['orders'], ['orders']]);
  });
});
