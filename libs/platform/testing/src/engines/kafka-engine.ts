import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import {
  enginesCacheDir,
  freePorts,
  pidAlive,
  portAnswers,
  repositoryRoot,
  requireTool,
  run,
  stopPid,
  waitUntil,
} from './engine-util';

/** The Maven project that names the broker and its logging binding. */
export function kafkaPom(): string {
  return path.join(repositoryRoot(), 'tools', 'engines', 'kafka', 'pom.xml');
}

export interface KafkaInstall {
  /** Folder holding every jar of the broker's classpath. */
  jarsDir: string;
  /** The `kafka.version` of the pom. */
  version: string;
}

/**
 * Resolves the broker's jars from Maven Central into the engines cache (once per pom content;
 * later calls only check the folder). Throws a one-line EngineToolMissingError without java or mvn.
 */
export async function installKafka(options: { log?: (line: string) => void } = {}): Promise<KafkaInstall> {
  requireTool('java', '-version', 'Apache Kafka needs a Java 17+ runtime (Debian: openjdk-17-jre-headless)');
  const pom = await readFile(kafkaPom(), 'utf8');
  const version = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pom)?.[1] ?? 'unknown';
  const digest = createHash('sha256').update(pom).digest('hex').slice(0, 12);
  const jarsDir = path.join(enginesCacheDir(), `kafka-${version}-${digest}`);
  if (existsSync(path.join(jarsDir, `kafka_2.13-${version}.jar`))) return { jarsDir, version };

  requireTool('mvn', '-v', 'resolving Apache Kafka from Maven Central needs Maven (Debian: maven)');
  options.log?.(`kafka: resolving org.apache.kafka:kafka_2.13:${version} from Maven Central`);
  const staging = `${jarsDir}.tmp-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(path.dirname(jarsDir), { recursive: true });
  await run('mvn', ['-q', '-B', '-f', kafkaPom(), 'dependency:copy-dependencies', `-DoutputDirectory=${staging}`]);
  await rm(jarsDir, { recursive: true, force: true });
  await rename(staging, jarsDir);
  const jars = (await readdir(jarsDir)).filter((f) => f.endsWith('.jar')).length;
  options.log?.(`kafka: ${jars} jars in ${jarsDir}`);
  return { jarsDir, version };
}

export interface KafkaNodeState {
  id: number;
  /** Client listener (PLAINTEXT). */
  port: number;
  /** KRaft controller listener. */
  controllerPort: number;
  /** Process id while running (detached clusters record it for `engines:down`). */
  pid?: number;
}

export interface KafkaClusterState {
  clusterId: string;
  jarsDir: string;
  dataDir: string;
  nodes: KafkaNodeState[];
}

export interface KafkaClusterOptions {
  /** Folder of the cluster: one `node-<id>` folder per broker, formatted on first start. */
  dataDir: string;
  /** Brokers, each a combined broker + KRaft controller (default 1). 3 gives RF 3, min ISR 2. */
  nodes?: number;
  /** Heap per broker in MiB (default 512 for one node, 384 each for more). */
  heapMb?: number;
  /** Processes outlive this one (`engines:up`); otherwise they are killed when it exits. */
  detached?: boolean;
  /** How long one broker may take to register with the controller (default 90 s). */
  startTimeoutMs?: number;
  log?: (line: string) => void;
}

export interface KafkaNode {
  readonly id: number;
  readonly port: number;
  readonly address: string;
  readonly running: boolean;
  /** Kills the broker with `signal` (default SIGKILL: a crash, nothing flushed). */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the broker again on the same data and ports, and waits until the cluster sees it. */
  start(): Promise<void>;
}

export interface KafkaCluster {
  readonly brokers: string[];
  readonly nodes: KafkaNode[];
  readonly state: KafkaClusterState;
  /** Stops every broker (SIGTERM, then SIGKILL); the data stays unless `remove`. */
  stop(options?: { remove?: boolean }): Promise<void>;
}

const LOG4J2 = `status = error
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stdout.ref = STDOUT
logger.raft.name = kafka.server.KafkaRaftServer
logger.raft.level = INFO
`;

function serverProperties(node: KafkaNodeState, state: KafkaClusterState): string {
  const n = state.nodes.length;
  const replicated = n >= 3;
  const voters = state.nodes.map((v) => `${v.id}@127.0.0.1:${v.controllerPort}`).join(',');
  return [
    'process.roles=broker,controller',
    `node.id=${node.id}`,
    `controller.quorum.voters=${voters}`,
    `listeners=PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${node.port}`,
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${path.join(state.dataDir, `node-${node.id}`, 'data')}`,
    'num.partitions=4',
    `default.replication.factor=${replicated ? 3 : 1}`,
    `min.insync.replicas=${replicated ? 2 : 1}`,
    `offsets.topic.replication.factor=${replicated ? 3 : 1}`,
    'offsets.topic.num.partitions=8',
    `transaction.state.log.replication.factor=${replicated ? 3 : 1}`,
    `transaction.state.log.min.isr=${replicated ? 2 : 1}`,
    'transaction.state.log.num.partitions=4',
    'share.coordinator.state.topic.replication.factor=' + (replicated ? 3 : 1),
    'share.coordinator.state.topic.min.isr=' + (replicated ? 2 : 1),
    // Tests and developers join groups right away; production keeps Kafka's 3 s default.
    'group.initial.rebalance.delay.ms=0',
    'auto.create.topics.enable=true',
    'unclean.leader.election.enable=false',
    'log.retention.hours=24',
    'log.segment.bytes=67108864',
    '',
  ].join('\n');
}

/** The JVM command of one broker. */
function javaArgs(state: KafkaClusterState, node: KafkaNodeState, heapMb: number): string[] {
  const dir = path.join(state.dataDir, `node-${node.id}`);
  return [
    `-Xmx${heapMb}m`,
    `-Xms${Math.min(heapMb, 256)}m`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${path.join(dir, 'log4j2.properties')}`,
    '-cp',
    path.join(state.jarsDir, '*'),
    'kafka.Kafka',
    path.join(dir, 'server.properties'),
  ];
}

async function readState(dataDir: string): Promise<KafkaClusterState | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dataDir, 'cluster.json'), 'utf8')) as KafkaClusterState;
  } catch {
    return undefined;
  }
}

async function writeState(state: KafkaClusterState): Promise<void> {
  await writeFile(path.join(state.dataDir, 'cluster.json'), JSON.stringify(state, null, 2));
}

/** Reads the recorded cluster of `dataDir`, when one was started there. */
export function kafkaClusterState(dataDir: string): Promise<KafkaClusterState | undefined> {
  return readState(dataDir);
}

/** Stops the recorded brokers of a detached cluster (and only them); the data stays. */
export async function stopKafkaCluster(dataDir: string): Promise<number> {
  const state = await readState(dataDir);
  if (!state) return 0;
  let stopped = 0;
  for (const node of state.nodes) {
    if (node.pid && pidAlive(node.pid)) {
      await stopPid(node.pid);
      stopped++;
    }
    node.pid = undefined;
  }
  await writeState(state);
  return stopped;
}

/** Asks the cluster which brokers have registered. */
async function registeredBrokers(brokers: string[]): Promise<number> {
  const admin = new Kafka({
    brokers,
    clientId: 'flowplane-engines',
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 3000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    return cluster.brokers.length;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Starts (or restarts, on the data and ports of an earlier start) a KRaft cluster of combined
 * broker + controller nodes from the cached jars, and resolves once every broker has registered.
 */
export async function startKafkaCluster(options: KafkaClusterOptions): Promise<KafkaCluster> {
  const { jarsDir } = await installKafka({ log: options.log });
  const count = options.nodes ?? 1;
  const heapMb = options.heapMb ?? (count > 1 ? 384 : 512);
  const startTimeoutMs = options.startTimeoutMs ?? 90_000;
  await mkdir(options.dataDir, { recursive: true });

  let state = await readState(options.dataDir);
  if (state && state.nodes.length !== count) {
    throw new Error(
      `Kafka data in ${options.dataDir} belongs to a ${state.nodes.length}-node cluster; asked for ${count} (remove the folder or use another)`,
    );
  }
  if (!state) {
    const ports = await freePorts(count * 2);
    state = {
      clusterId: kafkaUuid(),
      jarsDir,
      dataDir: options.dataDir,
      nodes: Array.from({ length: count }, (_, i) => ({
        id: i + 1,
        port: ports[i * 2],
        controllerPort: ports[i * 2 + 1],
      })),
    };
  }
  state.jarsDir = jarsDir;
  const cluster: KafkaClusterState = state;

  for (const node of cluster.nodes) {
    const dir = path.join(cluster.dataDir, `node-${node.id}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'server.properties'), serverProperties(node, cluster));
    await writeFile(path.join(dir, 'log4j2.properties'), LOG4J2);
    if (!existsSync(path.join(dir, 'data', 'meta.properties'))) {
      await run(
        'java',
        [
          '-Xmx256m',
          `-Dlog4j2.configurationFile=${path.join(dir, 'log4j2.properties')}`,
          '-cp',
          path.join(jarsDir, '*'),
          'kafka.tools.StorageTool',
          'format',
          '--ignore-formatted',
          '-t',
          cluster.clusterId,
          '-c',
          path.join(dir, 'server.properties'),
        ],
        { timeoutMs: 120_000 },
      );
    }
  }
  await writeState(cluster);

  const brokers = cluster.nodes.map((n) => `127.0.0.1:${n.port}`);
  const children = new Map<number, ChildProcess>();
  const exits = new Map<number, string>();
  const killAll = (): void => {
    for (const child of children.values()) child.kill('SIGKILL');
  };
  if (!options.detached) process.once('exit', killAll);

  const spawnNode = async (node: KafkaNodeState): Promise<void> => {
    if (node.pid && pidAlive(node.pid) && (await portAnswers(node.port))) return;
    if (await portAnswers(node.port)) {
      throw new Error(`port ${node.port} of Kafka node ${node.id} is taken by another process`);
    }
    const dir = path.join(cluster.dataDir, `node-${node.id}`);
    const logFd = openSync(path.join(dir, 'broker.log'), 'a');
    const child = spawn('java', javaArgs(cluster, node, heapMb), {
      detached: options.detached === true,
      stdio: ['ignore', logFd, logFd],
    });
    closeSync(logFd);
    exits.delete(node.id);
    child.once('exit', (code, signal) => {
      exits.set(node.id, `exited (${code ?? signal}); see ${path.join(dir, 'broker.log')}`);
      if (children.get(node.id) === child) children.delete(node.id);
    });
    if (options.detached) child.unref();
    children.set(node.id, child);
    node.pid = child.pid;
    await writeState(cluster);
  };

  const waitRegistered = (what: string, ids: number[]): Promise<void> =>
    waitUntil(
      what,
      async () => (await registeredBrokers(brokers)) >= cluster.nodes.length,
      {
        timeoutMs: startTimeoutMs,
        intervalMs: 500,
        failed: () => ids.map((id) => exits.get(id)).find(Boolean),
      },
    );

  try {
    await Promise.all(cluster.nodes.map(spawnNode));
    await waitRegistered(
      `Kafka (${count} node${count > 1 ? 's' : ''} on ${brokers.join(',')})`,
      cluster.nodes.map((n) => n.id),
    );
  } catch (e) {
    if (!options.detached) killAll();
    else for (const n of cluster.nodes) if (n.pid) await stopPid(n.pid);
    throw e;
  }

  const nodes: KafkaNode[] = cluster.nodes.map((node) => ({
    id: node.id,
    port: node.port,
    address: `127.0.0.1:${node.port}`,
    get running() {
      return node.pid !== undefined && pidAlive(node.pid) && !exits.has(node.id);
    },
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      const pid = node.pid;
      if (!pid) return;
      const child = children.get(node.id);
      const gone = child ? new Promise<void>((r) => child.once('exit', () => r())) : undefined;
      try {
        process.kill(pid, signal);
      } catch {
        // Already gone.
      }
      if (gone) await gone;
      else while (pidAlive(pid)) await new Promise((r) => setTimeout(r, 50));
      node.pid = undefined;
      await writeState(cluster);
    },
    async start() {
      await spawnNode(node);
      await waitRegistered(`Kafka node ${node.id}`, [node.id]);
    },
  }));

  return {
    brokers,
    nodes,
    state: cluster,
    async stop(stopOptions = {}) {
      process.removeListener('exit', killAll);
      await Promise.all(
        cluster.nodes.map(async (n) => {
          if (n.pid) await stopPid(n.pid);
          n.pid = undefined;
        }),
      );
      if (stopOptions.remove) await rm(cluster.dataDir, { recursive: true, force: true });
      else await writeState(cluster);
    },
  };
}

/** A Kafka cluster id: 16 random bytes, URL-safe base64 without padding (what `random-uuid` prints). */
function kafkaUuid(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Why a real Kafka cannot be started here, or false: Java must run, and the jars must be cached
 * or Maven present to fetch them. Synchronous, for `describeIntegration`.
 */
export function kafkaEngineUnavailable(): string | false {
  const java = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (java.error || java.status !== 0) return 'java not found on PATH: Apache Kafka needs a Java 17+ runtime';
  const mvn = spawnSync('mvn', ['-v'], { stdio: 'ignore' });
  if (mvn.error || mvn.status !== 0) {
    const cached = existsSync(enginesCacheDir()) && readdirSync(enginesCacheDir()).some((d) => d.startsWith('kafka-'));
    if (!cached) return 'mvn not found on PATH and no cached Kafka jars: resolving Apache Kafka needs Maven';
  }
  return false;
}
