import { rmSync } from 'node:fs';
import { missingPlatformFlags } from '@flowplane/platform/config';
import { describeIntegration, type KafkaMock, kafkaMockUnavailable, startKafkaMock } from '@flowplane/platform/testing';
import { type SplitPlatform, startSplit } from '../../tools/split/split';
import { call, tempDir, TEST_SECRET, token } from '../support/http';

/**
 * Split mode: every service its own process on the Kafka bus (the mock broker), talking through
 * real HTTP. Runs the compiled code in dist/ (`npm test` builds first).
 */
describeIntegration('split mode: one process per service on Kafka', kafkaMockUnavailable(), { requiredInCi: true }, () => {
  let broker: KafkaMock;
  let platform: SplitPlatform;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir('split');
    broker = await startKafkaMock({ topics: [{ name: 'platform.probe', partitions: 4 }, { name: 'platform.probe_ack', partitions: 4 }] });
    platform = await startSplit({
      brokers: broker.brokers,
      basePort: 19080,
      env: { AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'warn', DATA_DIR: dataDir, GATEWAY_RATE_LIMIT: '0' },
      startTimeoutMs: 60000,
    });
  }, 120000);

  afterAll(async () => {
    await platform?.stop();
    await broker?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60000);

  it('runs every service as its own process, under the platform node flags', () => {
    const pids = new Set(Object.values(platform.processes).map((p) => p.pid));
    expect(pids.size).toBe(8);
    for (const p of Object.values(platform.processes)) expect(missingPlatformFlags(p.spawnargs.slice(1), '')).toEqual([]);
  });

  it('routes through the gateway to every service', async () => {
    const health = await call(`${platform.gatewayUrl}/api/v1/health`);
    expect(health.status).toBe(200);
    expect(Object.values(health.body.services).every((s: any) => s.status === 'up')).toBe(true);
    const system = await call(`${platform.gatewayUrl}/api/v1/admin/system`, { bearer: await token('alice', ['admin:access']) });
    expect(system.status).toBe(200);
    const buses = system.body.services.map((s: any) => s.adapters.bus);
    expect(buses).toEqual(Array(7).fill('kafka'));
  });

  it('delivers an event published in one process to consumers in every other process', async () => {
    // The gateway process publishes platform.probe; each service process consumes it in its own
    // consumer group and publishes an answer the gateway process consumes.
    const admin = await token('alice', ['admin:access']);
    let body: any;
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await call(`${platform.gatewayUrl}/api/v1/admin/system/bus-probe?timeoutMs=20000`, { method: 'POST', bearer: admin });
      expect(res.status).toBe(200);
      body = res.body;
      if (body.ok) break;
    }
    expect(body.missing).toEqual([]);
    expect(Object.keys(body.acknowledged).sort()).toEqual(['assistant', 'deployments', 'flow-runtime', 'hub', 'i18n', 'profiles', 'search']);
  }, 90000);
});
