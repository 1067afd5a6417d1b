import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  EngineToolMissingError,
  enginesCacheDir,
  ferretDbState,
  kafkaClusterState,
  removeFerretDb,
  pidAlive,
  portAnswers,
  startFerretDb,
  startKafkaCluster,
  stopFerretDb,
  stopKafkaCluster,
} from '../../libs/platform/testing/src/engines';

const USAGE = `usage: npm run engines:up [-- --only kafka|mongo] [--kafka-nodes 3] [--mongo-backend postgresql|sqlite] [--fresh]
       npm run engines:down
       npm run engines:env

Starts real servers for the Kafka and MongoDB adapters: Apache Kafka (KRaft, from Maven Central)
and FerretDB (a MongoDB wire-protocol server, built from the Go module proxy, on a private cluster
of Debian's PostgreSQL where it is installed, else on SQLite). Downloads
and builds are cached under ${enginesCacheDir()}; a second up is fast. Prints KAFKA_BROKERS=… and
MONGO_URL=… on stdout (progress goes to stderr), so a shell can take them with
  set -a; eval "$(npm run -s engines:up)"; set +a`;

interface Args {
  command: string;
  only?: 'kafka' | 'mongo';
  kafkaNodes: number;
  fresh: boolean;
  mongoBackend?: 'postgresql' | 'sqlite';
}

function parseArgs(argv: string[]): Args {
  const args: Args = { command: argv[0] ?? '', kafkaNodes: 1, fresh: false };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a.startsWith('--only')) {
      const v = value();
      if (v !== 'kafka' && v !== 'mongo') throw new Error(`--only takes kafka or mongo, not ${v}`);
      args.only = v;
    } else if (a.startsWith('--kafka-nodes')) {
      const n = Number(value());
      if (n !== 1 && n !== 3) throw new Error('--kafka-nodes takes 1 or 3');
      args.kafkaNodes = n;
    } else if (a.startsWith('--mongo-backend')) {
      const v = value();
      if (v !== 'postgresql' && v !== 'sqlite') throw new Error(`--mongo-backend takes postgresql or sqlite, not ${v}`);
      args.mongoBackend = v;
    } else if (a === '--fresh') args.fresh = true;
    else throw new Error(`unknown option ${a}`);
  }
  return args;
}

const runDir = (): string => path.join(enginesCacheDir(), 'run');
const kafkaDir = (): string => path.join(runDir(), 'kafka');
const ferretDir = (): string => path.join(runDir(), 'ferretdb');
const log = (line: string): void => void process.stderr.write(`engines: ${line}\n`);

async function up(args: Args): Promise<void> {
  const started = Date.now();
  const lines: string[] = [];
  if (args.only !== 'mongo') {
    if (args.fresh) {
      await stopKafkaCluster(kafkaDir());
      await rm(kafkaDir(), { recursive: true, force: true });
    }
    const previous = await kafkaClusterState(kafkaDir());
    if (previous && previous.nodes.length !== args.kafkaNodes) {
      log(`replacing the ${previous.nodes.length}-node Kafka cluster with a ${args.kafkaNodes}-node one`);
      await stopKafkaCluster(kafkaDir());
      await rm(kafkaDir(), { recursive: true, force: true });
    }
    const t0 = Date.now();
    const cluster = await startKafkaCluster({ dataDir: kafkaDir(), nodes: args.kafkaNodes, detached: true, log });
    log(`Kafka ${args.kafkaNodes}-node KRaft cluster answers at ${cluster.brokers.join(',')} (${Date.now() - t0} ms)`);
    lines.push(`KAFKA_BROKERS=${cluster.brokers.join(',')}`);
  }
  if (args.only !== 'kafka') {
    const previous = await ferretDbState(ferretDir());
    if (args.fresh || (args.mongoBackend && previous?.backend && previous.backend !== args.mongoBackend)) {
      await removeFerretDb(ferretDir());
    }
    const t0 = Date.now();
    const ferret = await startFerretDb({ dataDir: ferretDir(), detached: true, backend: args.mongoBackend, log });
    log(`FerretDB (${ferret.state.backend} backend) answers at ${ferret.url} (${Date.now() - t0} ms)`);
    lines.push(`MONGO_URL=${ferret.url}`);
  }
  log(`ready in ${Date.now() - started} ms; stop with npm run engines:down`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function down(): Promise<void> {
  const kafka = await stopKafkaCluster(kafkaDir());
  const ferret = await stopFerretDb(ferretDir());
  log(`stopped ${kafka} Kafka node(s) and ${ferret} FerretDB server(s); data kept under ${runDir()}`);
}

/** Prints the lines of what is running now, without starting anything. */
async function printEnv(): Promise<void> {
  const lines: string[] = [];
  const kafka = await kafkaClusterState(kafkaDir());
  if (kafka) {
    const live = [];
    for (const n of kafka.nodes) if (n.pid && pidAlive(n.pid) && (await portAnswers(n.port))) live.push(n);
    if (live.length) lines.push(`KAFKA_BROKERS=${live.map((n) => `127.0.0.1:${n.port}`).join(',')}`);
  }
  const ferret = await ferretDbState(ferretDir());
  if (ferret?.pid && pidAlive(ferret.pid) && (await portAnswers(ferret.port))) {
    lines.push(`MONGO_URL=mongodb://127.0.0.1:${ferret.port}/`);
  }
  if (!lines.length) {
    log('nothing running; start with npm run engines:up');
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`engines: ${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  try {
    if (args.command === 'up') await up(args);
    else if (args.command === 'down') await down();
    else if (args.command === 'env') await printEnv();
    else {
      process.stderr.write(`${USAGE}\n`);
      process.exit(args.command === 'help' || args.command === '--help' ? 0 : 2);
    }
  } catch (e) {
    const message = e instanceof EngineToolMissingError ? e.message : (e as Error).message;
    process.stderr.write(`engines: ${message}\n`);
    process.exit(1);
  }
}

void main();
