import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { DownstreamConsumerModule } from './app.module';
import { kafkaMicroserviceOptions, loadConfig } from './config';
import { TOPICS } from './events.generated';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(
    DownstreamConsumerModule,
    kafkaMicroserviceOptions(config),
  );
  // SIGTERM/SIGINT close the server: the consumer commits what it finished and leaves its group.
  app.enableShutdownHooks();
  await app.listen();
  new Logger('DownstreamConsumer').log(
    `consuming ${TOPICS.join(', ')} as group ${config.groupId} from ${config.brokers.join(',')}`,
  );
}

bootstrap().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
