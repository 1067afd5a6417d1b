import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Finds the repository root from here, whether running from sources (Jest) or from dist/. */
function repoRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (existsSync(path.join(dir, 'tools', 'kafka-mock', 'kafka-mock.c'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(__dirname, '../../../..');
    dir = parent;
  }
}

/** Path of the Kafka mock broker built by `npm run kafka-mock:build` (override with `KAFKA_MOCK_BIN`). */
export const kafkaMockBinary: string =
  process.env.KAFKA_MOCK_BIN || path.join(repoRoot(), 'tools', 'kafka-mock', 'build', 'kafka-mock');

/** Why Kafka-mock suites cannot run here, or false when they can. */
export function kafkaMockUnavailable(): string | false {
  return existsSync(kafkaMockBinary)
    ? false
    : `Kafka mock broker not built (${kafkaMockBinary} missing; run npm run kafka-mock:build)`;
}

export interface KafkaMockTopic {
  name: string;
  partitions: number;
}

export interface KafkaMockOptions {
  /** Topics to create up front (the mock has no CreateTopics; others auto-create with 4 partitions). */
  topics?: Array<string | KafkaMockTopic>;
  /** Brokers in the mock cluster (default 1). */
  brokers?: number;
  /** How long to wait for the bootstrap address (default 10000 ms). */
  startTimeoutMs?: number;
}

export interface KafkaMock {
  /** Bootstrap addresses, for `KAFKA_BROKERS` or kafkajs' `brokers`. */
  brokers: string[];
  /** Terminates the broker (all its data is gone). */
  stop(): Promise<void>;
}

/** Starts librdkafka's mock Kafka cluster in a child process and resolves once it listens. */
export function startKafkaMock(options: KafkaMockOptions = {}): Promise<KafkaMock> {
  const unavailable = kafkaMockUnavailable();
  if (unavailable) return Promise.reject(new Error(unavailable));
  const args = ['--watch-stdin', '--brokers', String(options.brokers ?? 1)];
  for (const t of options.topics ?? []) args.push(typeof t === 'string' ? t : `${t.name}:${t.partitions}`);
  // stdin stays an open pipe: the broker exits when it closes, so a killed test runner leaves no orphan.
  const child = spawn(kafkaMockBinary, args, { stdio: ['pipe', 'pipe', 'pipe'] });

  return new Promise<KafkaMock>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(
      () =>
        fail(
          new Error(
            `Kafka mock did not print its address within ${options.startTimeoutMs ?? 10_000} ms: ${stderr}`,
          ),
        ),
      options.startTimeoutMs ?? 10_000,
    );
    child.once('error', (e) => fail(e));
    child.once('exit', (code, signal) =>
      fail(new Error(`Kafka mock exited (${code ?? signal}) before listening: ${stderr.trim()}`)),
    );
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (settled) return;
      stdout += chunk;
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      settled = true;
      clearTimeout(timer);
      const brokers = stdout.slice(0, nl).trim().split(',').filter(Boolean);
      let stopping: Promise<void> | undefined;
      resolve({
        brokers,
        stop: () =>
          (stopping ??= (async () => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill('SIGTERM');
            const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
            await exited;
            clearTimeout(killer);
            child.stdin.destroy();
          })()),
      });
    });
  });
}
