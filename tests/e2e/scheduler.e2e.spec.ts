import { flowRuntimeDefinition, SchedulerService } from '@flowplane/flow-runtime';
import { MemoryEventBus } from '@flowplane/platform/bus';
import { type RunningService, startService } from '@flowplane/platform/service';
import { createMemoryStore } from '@flowplane/platform/store';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, serviceToken, TEST_SECRET, testEnv, token } from '../support/http';

describe('scheduler routes through the gateway', () => {
  let platform: Standalone;
  let admin: string;

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv() });
    admin = await token('alice', ['admin:access']);
  });
  afterAll(() => platform?.close());

  it('creates, reads and lists an entry with its next firing in UTC', async () => {
    const put = await call(`${platform.url}/api/v1/flows/schedules/nightly-report`, {
      method: 'PUT',
      bearer: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cron: '30 3 * * *', topic: 'reports.nightly', payload: { scope: 'all' } }),
    });
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({ id: 'nightly-report', cron: '30 3 * * *', topic: 'reports.nightly', enabled: true, source: 'operator' });
    expect(put.body.nextRunAt).toMatch(/T03:30:00\.000Z$/);
    const got = await call(`${platform.url}/api/v1/flows/schedules/nightly-report`, { bearer: admin });
    expect(got.body.payload).toEqual({ scope: 'all' });
    const list = await call(`${platform.url}/api/v1/flows/schedules`, { bearer: admin });
    expect(list.body.map((s: { id: string }) => s.id)).toContain('nightly-report');
  });

  it('disabling clears the next firing', async () => {
    const res = await call(`${platform.url}/api/v1/flows/schedules/nightly-report`, {
      method: 'PUT',
      bearer: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cron: '30 3 * * *', topic: 'reports.nightly', enabled: false }),
    });
    expect(res.body.enabled).toBe(false);
    expect(res.body.nextRunAt).toBeUndefined();
  });

  it('changes only the fields a PUT gives on an existing entry: {"enabled": false} turns it off, 200', async () => {
    const url = `${platform.url}/api/v1/flows/schedules/nightly-report`;
    const put = (body: unknown) => call(url, { method: 'PUT', bearer: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const on = await put({ enabled: true });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ cron: '30 3 * * *', topic: 'reports.nightly', enabled: true });
    expect(on.body.nextRunAt).toMatch(/T03:30:00\.000Z$/);
    const off = await put({ enabled: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: 'nightly-report', cron: '30 3 * * *', topic: 'reports.nightly', enabled: false });
    expect(off.body.nextRunAt).toBeUndefined();
    const retimed = await put({ cron: '0 4 * * *' });
    expect(retimed.body).toMatchObject({ cron: '0 4 * * *', topic: 'reports.nightly', enabled: false });
    // A new entry needs cron and topic: the 400 names both.
    const missing = await call(`${platform.url}/api/v1/flows/schedules/not-yet`, { method: 'PUT', bearer: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ enabled: false }) });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([
      { field: 'cron', problems: ['cron is required to create an entry'] },
      { field: 'topic', problems: ['topic is required to create an entry'] },
    ]);
    expect((await call(`${platform.url}/api/v1/flows/schedules/not-yet`, { bearer: admin })).status).toBe(404);
  });

  it('rejects a cron that is not five fields, naming the field', async () => {
    const res = await call(`${platform.url}/api/v1/flows/schedules/bad`, {
      method: 'PUT',
      bearer: admin,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cron: '0 0 * * * *', topic: 'a.b' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'cron', problems: [expect.stringContaining('five fields')] }]);
  });

  it('answers 404 for an unknown entry and 401/403 without the right token', async () => {
    expect((await call(`${platform.url}/api/v1/flows/schedules/nope`, { bearer: admin })).status).toBe(404);
    expect((await call(`${platform.url}/api/v1/flows/schedules`)).status).toBe(401);
    expect((await call(`${platform.url}/api/v1/flows/schedules`, { bearer: await token('bob', []) })).status).toBe(403);
    expect((await call(`${platform.url}/api/v1/flows/schedules`, { bearer: await token('carol', ['admin:access'], { active: false }) })).status).toBe(403);
  });

  it('deletes an entry with 204; it is gone from reads and the list, and an unknown id is a 404', async () => {
    const url = `${platform.url}/api/v1/flows/schedules/weekly-digest`;
    const put = await call(url, { method: 'PUT', bearer: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cron: '0 8 * * 1', topic: 'digest.weekly' }) });
    expect(put.status).toBe(201);
    expect((await call(url, { method: 'DELETE' })).status).toBe(401);
    expect((await call(url, { method: 'DELETE', bearer: await token('bob', []) })).status).toBe(403);
    const del = await call(url, { method: 'DELETE', bearer: admin });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await call(url, { bearer: admin })).status).toBe(404);
    const list = await call(`${platform.url}/api/v1/flows/schedules`, { bearer: admin });
    expect(list.body.map((s: { id: string }) => s.id)).not.toContain('weekly-digest');
    const again = await call(url, { method: 'DELETE', bearer: admin });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ statusCode: 404, code: 'SCHEDULE_NOT_FOUND' });
  });
});

describe('scheduler across two replicas', () => {
  const store = createMemoryStore();
  const bus = new MemoryEventBus({});
  const env = { PORT: '0', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', SCHEDULER_TICK_MS: '0' };
  let a: RunningService;
  let b: RunningService;

  beforeAll(async () => {
    // Two flow-runtime replicas sharing one store and one bus, as two pods share MongoDB and Kafka.
    a = await startService(flowRuntimeDefinition, { env, store, bus });
    b = await startService(flowRuntimeDefinition, { env, store, bus });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await bus.close();
    await store.close();
  });

  it('fires each due entry exactly once, on one replica, and seeds never retime an entry', async () => {
    const seedToken = await serviceToken('i18n', 'flow-runtime', ['internal:schedules:seed']);
    const seed = (cron: string) =>
      call(`${a.url}/internal/schedules/seed`, {
        method: 'POST',
        bearer: seedToken,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ entries: [{ id: 'i18n-translate-sweep', cron, topic: 'i18n.translate.sweep', payload: {} }] }),
      });
    expect((await seed('*/5 * * * *')).body).toEqual({ inserted: ['i18n-translate-sweep'], existing: [] });
    expect((await seed('0 0 * * *')).body).toEqual({ inserted: [], existing: ['i18n-translate-sweep'] });

    const fired: Array<{ scheduleId: string; firedAt: string }> = [];
    const sub = await bus.subscribe(['i18n.translate.sweep'], { groupId: 'test-sweep', fromBeginning: true }, async (e) => {
      fired.push(e.data as { scheduleId: string; firedAt: string });
    });
    const entry = (await call(`${a.url}/api/v1/flows/schedules/i18n-translate-sweep`, { bearer: await token('alice', ['admin:access']) })).body;
    expect(entry.cron).toBe('*/5 * * * *');
    const due = new Date(new Date(entry.nextRunAt).getTime() + 1000);
    // Both replicas tick at the same moment, twice: the lease and the compare-and-set claim keep it to one firing.
    const sa = a.app.get(SchedulerService);
    const sb = b.app.get(SchedulerService);
    await Promise.all([sa.tick(due), sb.tick(due)]);
    await Promise.all([sa.tick(due), sb.tick(due)]);
    await new Promise((r) => setTimeout(r, 300));
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ scheduleId: 'i18n-translate-sweep', firedAt: due.toISOString() });
    expect([sa.isLeader(), sb.isLeader()].filter(Boolean)).toHaveLength(1);
    const after = (await call(`${b.url}/api/v1/flows/schedules/i18n-translate-sweep`, { bearer: await token('alice', ['admin:access']) })).body;
    expect(new Date(after.nextRunAt).getTime()).toBeGreaterThan(due.getTime());
    expect(after.lastFiredAt).toBe(due.toISOString());
    await sub.stop();
  });

  it('never fires a deleted entry', async () => {
    const admin = await token('alice', ['admin:access']);
    const fired: unknown[] = [];
    const sub = await bus.subscribe(['jobs.doomed'], { groupId: 'test-doomed', fromBeginning: true }, async (e) => {
      fired.push(e.data);
    });
    try {
      const put = await call(`${a.url}/api/v1/flows/schedules/doomed`, { method: 'PUT', bearer: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cron: '*/5 * * * *', topic: 'jobs.doomed' }) });
      const due = new Date(new Date(put.body.nextRunAt).getTime() + 1000);
      expect((await call(`${b.url}/api/v1/flows/schedules/doomed`, { method: 'DELETE', bearer: admin })).status).toBe(204);
      await Promise.all([a.app.get(SchedulerService).tick(due), b.app.get(SchedulerService).tick(due)]);
      await new Promise((r) => setTimeout(r, 200));
      expect(fired).toEqual([]);
    } finally {
      await sub.stop();
    }
  });

  it('claims a firing once even when two replicas both believe they lead', async () => {
    const admin = await token('alice', ['admin:access']);
    await call(`${a.url}/api/v1/flows/schedules/hourly`, { method: 'PUT', bearer: admin, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cron: '0 * * * *', topic: 'jobs.hourly' }) });
    const entry = (await call(`${a.url}/api/v1/flows/schedules/hourly`, { bearer: admin })).body;
    const asEntity = { ...entry, nextRunAt: new Date(entry.nextRunAt), createdAt: new Date(entry.createdAt), updatedAt: new Date(entry.updatedAt) };
    const now = new Date(asEntity.nextRunAt.getTime() + 5);
    const results = await Promise.all([a.app.get(SchedulerService).fire(asEntity, now), b.app.get(SchedulerService).fire(asEntity, now)]);
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
