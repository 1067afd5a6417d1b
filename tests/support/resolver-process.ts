/**
 * A stand-in for one replica of a service that reads profiles: a `ProfileResolver` on its own bus
 * connection, in its own process. The split-mode invalidation test runs two of them
 * (`node dist/tests/support/resolver-process.js`, built by `node tools/build.mjs`).
 *
 * Environment: PROFILES_URL, BUS and KAFKA_BROKERS (as the services read them), HOSTNAME (names the
 * fan-out group `profiles-invalidator-<HOSTNAME>`), AUTH_JWT_SECRET or AUTH_SERVICE_SECRET (for the
 * service token of the internal route); optional KAFKA_MAX_WAIT_MS (longest idle Kafka fetch).
 *
 * Protocol: one JSON object per line. The process prints `{"event":"ready","groupId":...}` once
 * subscribed, then answers each command on stdin with `{"id", "ok": true, ...}` or
 * `{"id", "ok": false, "error": {name, message}}`:
 * - `{"id", "op": "resolve", "module", "kind", "profileId"}` → `profile`, `stats`
 * - `{"id", "op": "watch", "module", "kind", "profileId", "field", "value", "timeoutMs"}` answers
 *   `{"id", "ok": true, "event": "watching"}` at once, then, when a resolve returns `config[field]`
 *   equal to `value`, `{"id", "ok": true, "observedAt": <epoch ms>, "stats"}` (polling every
 *   millisecond: a cache hit costs nothing, so it measures when the cache dropped the old value)
 * - `{"id", "op": "stats"}` → `stats`
 * - `{"id", "op": "stop"}` → leaves the group, closes the bus, exits 0
 */
import { createInterface } from 'node:readline';
import { hostname as osHostname } from 'node:os';
import { ProfileResolver, ServiceClient } from '@flowplane/contracts';
import { ServiceTokenProvider } from '@flowplane/platform/auth';
import { createEventBus, eventBusOptionsFromEnv } from '@flowplane/platform/bus';

interface Command {
  id?: number;
  op?: string;
  module?: string;
  kind?: string;
  profileId?: string;
  field?: string;
  value?: unknown;
  timeoutMs?: number;
}

const env = process.env;
const host = env.HOSTNAME || osHostname();

function send(message: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function errorOf(e: unknown): { name: string; message: string } {
  return e instanceof Error ? { name: e.name, message: e.message } : { name: 'Error', message: String(e) };
}

async function main(): Promise<void> {
  const secret = env.AUTH_SERVICE_SECRET || env.AUTH_JWT_SECRET;
  if (!env.PROFILES_URL) throw new Error('PROFILES_URL is required');
  if (!secret) throw new Error('AUTH_JWT_SECRET or AUTH_SERVICE_SECRET is required');
  const tokens = new ServiceTokenProvider(`resolver-${host}`, secret);
  const client = new ServiceClient({ service: 'profiles', baseUrl: env.PROFILES_URL, tokenProvider: (target, perms) => tokens.token(target, perms) });
  const busOptions = eventBusOptionsFromEnv(env, {
    clientId: `resolver-${host}`,
    source: `/tests/resolver/${host}`,
    logger: { warn: (m) => process.stderr.write(`warn: ${m}\n`), error: (m) => process.stderr.write(`error: ${m}\n`) },
  });
  // Longest a Kafka fetch waits on an idle topic (adapter default 1000 ms). The mock broker answers a
  // fetch only when this runs out, where a real broker answers as soon as an event arrives.
  const maxWait = Number(env.KAFKA_MAX_WAIT_MS);
  if (busOptions.kafka && maxWait > 0) busOptions.kafka.maxWaitTimeInMs = maxWait;
  const bus = createEventBus(busOptions);
  const resolver = new ProfileResolver({ client, bus, hostname: host });
  await resolver.start();
  send({ event: 'ready', groupId: resolver.groupId, pid: process.pid });

  let stopping = false;
  const stop = async (id?: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await resolver.stop().catch(() => undefined);
    await bus.close().catch(() => undefined);
    if (id !== undefined) send({ id, ok: true });
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());

  const watch = async (c: Command): Promise<void> => {
    const deadline = Date.now() + (c.timeoutMs ?? 5000);
    send({ id: c.id, ok: true, event: 'watching' });
    for (;;) {
      try {
        const p = await resolver.resolve(c.module!, c.kind!, c.profileId!);
        if (JSON.stringify(p.config[c.field!]) === JSON.stringify(c.value)) {
          send({ id: c.id, ok: true, observedAt: Date.now(), stats: resolver.stats() });
          return;
        }
      } catch {
        // Not found or unavailable for a moment: keep watching until the deadline.
      }
      if (Date.now() > deadline) {
        send({ id: c.id, ok: false, error: { name: 'Timeout', message: `no ${c.field}=${JSON.stringify(c.value)} within ${c.timeoutMs ?? 5000} ms` }, stats: resolver.stats() });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    void (async () => {
      let c: Command;
      try {
        c = JSON.parse(line) as Command;
      } catch {
        send({ ok: false, error: { name: 'SyntaxError', message: `not JSON: ${line}` } });
        return;
      }
      try {
        switch (c.op) {
          case 'resolve':
            send({ id: c.id, ok: true, profile: await resolver.resolve(c.module!, c.kind!, c.profileId!), stats: resolver.stats() });
            return;
          case 'watch':
            await watch(c);
            return;
          case 'stats':
            send({ id: c.id, ok: true, stats: resolver.stats() });
            return;
          case 'stop':
            await stop(c.id);
            return;
          default:
            send({ id: c.id, ok: false, error: { name: 'UnknownOp', message: `unknown op ${String(c.op)}` } });
        }
      } catch (e) {
        send({ id: c.id, ok: false, error: errorOf(e) });
      }
    })();
  });
  // The test runner going away closes stdin: leave the group instead of lingering.
  lines.once('close', () => void stop());
}

main().catch((e: unknown) => {
  process.stderr.write(`resolver-process failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
