import { ReadinessRegistry, SEEDING_CHECK } from './readiness.registry';

/** Runs every check; the names of those that fail with their messages. */
async function failing(registry: ReadinessRegistry): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, check] of registry.entries()) {
    await check().catch((e: Error) => (out[name] = e.message));
  }
  return out;
}

describe('ReadinessRegistry start-up seeding', () => {
  it('is not ready while any seeding task runs, and ready once every one has ended', async () => {
    const registry = new ReadinessRegistry();
    registry.add('store', async () => undefined);
    expect(await failing(registry)).toEqual({});

    const deployments = registry.beginSeeding('deployments');
    const templates = registry.beginSeeding('templates');
    expect(registry.isSeeding).toBe(true);
    expect(await failing(registry)).toEqual({ [SEEDING_CHECK]: 'seeding' });
    const check = registry.entries().find(([name]) => name === SEEDING_CHECK)![1];
    await expect(check()).rejects.toMatchObject({ details: { tasks: ['deployments', 'templates'] } });

    deployments();
    deployments(); // ending twice changes nothing
    expect(await failing(registry)).toEqual({ [SEEDING_CHECK]: 'seeding' });
    templates();
    expect(registry.isSeeding).toBe(false);
    expect(await failing(registry)).toEqual({});
  });

  it('keeps one seeding check however many tasks begin', () => {
    const registry = new ReadinessRegistry();
    registry.beginSeeding('a');
    registry.beginSeeding('b');
    expect(registry.entries().filter(([name]) => name === SEEDING_CHECK)).toHaveLength(1);
  });
});
