import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { ScheduleRepository } from './schedule.repository';
import { SchedulesService } from './schedules.service';

describe('SchedulesService.delete', () => {
  let store: Store;
  let repo: ScheduleRepository;
  let schedules: SchedulesService;
  const now = new Date('2030-01-01T00:00:00Z');

  beforeEach(async () => {
    store = createMemoryStore();
    repo = new ScheduleRepository(store);
    await repo.onModuleInit();
    schedules = new SchedulesService(repo, { tickMs: 0, leaseMs: 15_000, now: () => now });
  });
  afterEach(() => store.close());

  it('removes the entry: no longer read, listed or due', async () => {
    await schedules.put('nightly', { cron: '0 3 * * *', topic: 'reports.nightly' });
    await schedules.delete('nightly');
    await expect(schedules.get('nightly')).rejects.toMatchObject({ status: 404 });
    expect(await schedules.list()).toEqual([]);
    expect(await repo.due(new Date('2030-01-02T00:00:00Z'))).toEqual([]);
  });

  it('answers 404 for an unknown entry, also when deleted twice', async () => {
    await expect(schedules.delete('nope')).rejects.toMatchObject({ status: 404, code: 'SCHEDULE_NOT_FOUND' });
    await schedules.put('once', { cron: '0 3 * * *', topic: 'reports.once' });
    await schedules.delete('once');
    await expect(schedules.delete('once')).rejects.toMatchObject({ status: 404 });
  });

  it('lets a module seed a deleted entry again', async () => {
    await schedules.seed({ entries: [{ id: 'sweep', cron: '*/5 * * * *', topic: 'i18n.translate.sweep' }] });
    await schedules.delete('sweep');
    expect(await schedules.seed({ entries: [{ id: 'sweep', cron: '*/5 * * * *', topic: 'i18n.translate.sweep' }] })).toEqual({ inserted: ['sweep'], existing: [] });
  });
});
