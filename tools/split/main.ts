import { checkBusForLauncher } from '@flowplane/platform/config';
import { startSplit } from './split';

/**
 * `npm run start:split`: every service as its own process on the Kafka bus.
 * Uses KAFKA_BROKERS when set; otherwise starts the Kafka mock broker (built by `npm run kafka-mock:build`).
 * With STORE=mongo and MONGO_URL, every service keeps its documents on that server instead.
 */
async function main(): Promise<void> {
  try {
    checkBusForLauncher('split', process.env);
  } catch (e) {
    process.stderr.write(`split: ${(e as Error).message}\n`);
    process.exit(1);
  }
  let brokers = process.env.KAFKA_BROKERS?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
  let stopMock: (() => Promise<void>) | undefined;
  if (!brokers.length) {
    const { startKafkaMock, kafkaMockUnavailable } = await import('../../libs/platform/testing/src/kafka-mock');
    const why = kafkaMockUnavailable();
    if (why) {
      process.stderr.write(`KAFKA_BROKERS is not set and the Kafka mock broker is unavailable (${why}).\nSet KAFKA_BROKERS=host:port or run: npm run kafka-mock:build\n`);
      process.exit(1);
    }
    const mock = await startKafkaMock();
    brokers = mock.brokers;
    stopMock = mock.stop;
    process.stdout.write(`started the Kafka mock broker at ${brokers.join(',')} (in memory, for development only)\n`);
  }
  // STORE=mongo with MONGO_URL: every service on that server, each in its own database.
  const mongoUrl = process.env.STORE === 'mongo' ? process.env.MONGO_URL : undefined;
  if (process.env.STORE === 'mongo' && !mongoUrl) {
    process.stderr.write('split: STORE=mongo needs MONGO_URL (npm run engines:up prints one)\n');
    process.exit(1);
  }
  const platform = await startSplit({ brokers, mongoUrl, basePort: Number(process.env.PORT ?? 8080), inheritOutput: true }).catch((e: Error) => {
    process.stderr.write(`${e.message}\n`);
    return stopMock?.().then(() => process.exit(1));
  });
  if (!platform) return;
  const store = mongoUrl ? `, stores on ${new URL(mongoUrl).host} (one database per service)` : ', embedded stores';
  process.stdout.write(`\n  Flowplane split mode: ${Object.keys(platform.urls).length} processes on Kafka ${brokers.join(',')}${store}\n  Gateway ${platform.gatewayUrl}\n\n`);
  const stop = async () => {
    await platform.stop();
    await stopMock?.();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

void main();
