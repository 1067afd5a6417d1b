import { rmSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { kafkaTestServer, mongoTestServer } from '@flowplane/platform/testing';
import { serviceMongoUrl, type SplitOptions, type SplitPlatform, SPLIT_SERVICES, startSplit } from '../../tools/split/split';
import { tempDir } from './http';

/** The production engines for split-mode suites: Apache Kafka and a MongoDB-wire server. */
export function realEngines(): { unavailable: string | false; label: string; kafka: ReturnType<typeof kafkaTestServer>; mongo: ReturnType<typeof mongoTestServer> } {
  const kafka = kafkaTestServer();
  const mongo = mongoTestServer();
  return { unavailable: kafka.unavailable || mongo.unavailable, label: `Apache Kafka (${kafka.source}) and a MongoDB-wire server (${mongo.source})`, kafka, mongo };
}

export interface SplitOnEngines {
  platform: SplitPlatform;
  brokers: string[];
  /** The server with this run's database prefix; each service's database is `serviceDatabase(service)`. */
  mongoUrl: string;
  serviceDatabase(service: string): string;
  /** Stops the platform, drops the run's databases, stops what was started for it. */
  stop(): Promise<void>;
}

/**
 * Split mode on the real engines, named so that a long-lived broker and server (`npm run
 * engines:up`) can hold earlier runs: the databases carry `prefix` and a run id, and the processes
 * a HOSTNAME of their own (their per-host consumer groups).
 */
export async function startSplitOnEngines(
  engines: ReturnType<typeof realEngines>,
  prefix: string,
  options: Omit<SplitOptions, 'brokers' | 'mongoUrl'>,
): Promise<SplitOnEngines> {
  const run = `${prefix}_${Date.now().toString(36)}`;
  const started: Array<{ stop(): Promise<void> }> = [];
  const dataDir = tempDir(prefix);
  let platform: SplitPlatform | undefined;
  let mongoUrl = '';
  const serviceDatabase = (service: string) => new URL(serviceMongoUrl(mongoUrl, service)).pathname.slice(1);
  const stop = async () => {
    await platform?.stop();
    if (mongoUrl) {
      const client = await MongoClient.connect(mongoUrl);
      try {
        for (const [service] of SPLIT_SERVICES) await client.db(serviceDatabase(service)).dropDatabase().catch(() => undefined);
      } finally {
        await client.close();
      }
    }
    await Promise.allSettled(started.map((s) => s.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const kafka = await engines.kafka.start();
    started.push(kafka);
    const mongo = await engines.mongo.start();
    started.push(mongo);
    const u = new URL(mongo.url);
    u.pathname = `/${run}`;
    mongoUrl = u.toString();
    platform = await startSplit({
      ...options,
      brokers: kafka.brokers,
      mongoUrl,
      env: { DATA_DIR: dataDir, HOSTNAME: run.replace(/_/g, '-'), ...options.env },
      startTimeoutMs: options.startTimeoutMs ?? 120_000,
      startAttempts: options.startAttempts ?? 2,
    });
    return { platform, brokers: kafka.brokers, mongoUrl, serviceDatabase, stop };
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}
