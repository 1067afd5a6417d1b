import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { logLevel } from 'kafkajs';
import { describeIntegration, kafkaTestServer } from '@flowplane/platform/testing';
import { KafkaEventBus } from './kafka-event-bus.adapter';

const silent = { warn: () => undefined, error: () => undefined };
const server = kafkaTestServer();
const member = path.resolve(__dirname, '../../../../dist/tests/support/kafka-crash-member.js');
const unavailable = server.unavailable || (existsSync(member) ? false : `${member} not built (npm test builds it)`);

/**
 * The loss behind "events of one deployment never applied while lag read 0": a member whose
 * positioning of a new group's partitions failed used to consume from kafkajs' in-memory start;
 * killed before its first commit, it left the partition uncommitted, and the next owner's join
 * committed the log end of that moment, over the events the dead member had fetched and not run.
 */
describeIntegration(`Kafka positioning survives a member killed before its first commit: Apache Kafka (${server.source})`, unavailable, { requiredInCi: true }, () => {
  let brokers: string[];
  let stop: () => Promise<void>;
  let child: ChildProcess | undefined;
  const buses: KafkaEventBus[] = [];
  const bus = (): KafkaEventBus => {
    const b = new KafkaEventBus({ brokers, clientId: 'positioning', sessionTimeout: 6000, heartbeatInterval: 300, maxWaitTimeInMs: 50, logLevel: logLevel.NOTHING, logger: silent, topics: { partitions: 1 } });
    buses.push(b);
    return b;
  };

  beforeAll(async () => {
    ({ brokers, stop } = await server.start());
  }, 240_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await Promise.allSettled(buses.map((b) => b.close()));
    await stop?.();
  });

  it('hands every event published after a subscribe resolved to the next member, even when the first positioning failed', async () => {
    const suffix = `${process.pid}.${Date.now().toString(36)}`;
    const topic = `positioning.crash.${suffix}`;
    const groupId = `positioning-crash-${suffix}`;
    const producer = bus();
    await producer.provision([topic]);

    const proc = spawn(process.execPath, [member, brokers.join(','), topic, groupId, '5'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    let err = '';
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    proc.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    const waitOut = async (text: string, ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!out.includes(text)) {
        if (proc.exitCode !== null) throw new Error(`member exited: ${err}`);
        if (Date.now() > deadline) throw new Error(`member did not print ${text} within ${ms} ms: ${out} ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await waitOut('subscribed', 60_000);

    const ids = ['e1', 'e2', 'e3', 'e4', 'e5'];
    for (const id of ids) await producer.publish(topic, { id }, { key: 'one-key' });
    await waitOut('got e1', 20_000);
    proc.kill('SIGKILL');
    await new Promise((r) => proc.once('exit', r));

    const got = new Set<string>();
    const next = bus();
    const sub = await next.subscribe<{ id: string }>([topic], { groupId }, async (e) => {
      got.add(e.data.id);
    });
    const deadline = Date.now() + 30_000;
    while (got.size < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await sub.stop();
    expect([...got].sort()).toEqual(ids);
  }, 120_000);
});
