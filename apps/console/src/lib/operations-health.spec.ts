import { healthRows } from './operations-health';

describe('health rows', () => {
  it('reads the ready answer with the bus figures', () => {
    expect(healthRows({ status: 'ok', services: { gateway: { status: 'up' }, search: { status: 'up', checks: { bus: { lag: 2, consumers: 27, status: 'up' }, vector: { status: 'up' } } } } })).toEqual([
      { service: 'gateway', up: true, checks: {} },
      { service: 'search', up: true, checks: { bus: 'up', vector: 'up' }, busLag: 2, busConsumers: 27 },
    ]);
  });

  it('puts failing services first with their reason (the 503 body)', () => {
    const rows = healthRows({ statusCode: 503, code: 'NOT_READY', failing: ['i18n'], services: { gateway: { status: 'up' }, i18n: { status: 'down', reason: 'seeding', checks: { seeding: { status: 'down', message: 'seeding' } } } } });
    expect(rows[0]).toEqual({ service: 'i18n', up: false, reason: 'seeding', checks: { seeding: 'down' } });
  });

  it('answers nothing for a body without services', () => {
    expect(healthRows(undefined)).toEqual([]);
    expect(healthRows({ message: 'x' })).toEqual([]);
  });
});
