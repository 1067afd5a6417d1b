import { type KafkaOptions, Transport } from '@nestjs/microservices';
import { Partitioners } from 'kafkajs';

/** What the consumer reads from the environment. */
export interface DownstreamConsumerConfig {
  /** `KAFKA_BROKERS`: `host:port[,host:port…]` of the Kafka cluster Flowplane publishes to. */
  brokers: string[];
  /** `KAFKA_GROUP_ID`: the consumer group, used exactly as given (see kafkaMicroserviceOptions). */
  groupId: string;
  /** `KAFKA_CLIENT_ID`: the Kafka client id (shows in broker logs and quotas). */
  clientId: string;
  /** `KAFKA_FROM_BEGINNING=1`: a group without committed offsets starts at the oldest retained event, not the log end. */
  fromBeginning: boolean;
}

export const DEFAULT_GROUP_ID = 'flowplane-downstream-consumer';

/** The configuration from environment variables; throws on a value that cannot work. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): DownstreamConsumerConfig {
  const brokers = (env.KAFKA_BROKERS ?? 'localhost:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (!brokers.length) throw new Error('KAFKA_BROKERS must list host:port pairs, comma separated');
  const bad = brokers.filter((b) => !/^[^\s:]+:\d+$/.test(b));
  if (bad.length) throw new Error(`KAFKA_BROKERS: ${bad.join(', ')} is not host:port`);
  const groupId = (env.KAFKA_GROUP_ID ?? DEFAULT_GROUP_ID).trim();
  if (!groupId) throw new Error('KAFKA_GROUP_ID must not be empty');
  const fromBeginning = /^(1|true|yes)$/i.test((env.KAFKA_FROM_BEGINNING ?? '').trim());
  return { brokers, groupId, clientId: (env.KAFKA_CLIENT_ID ?? '').trim() || groupId, fromBeginning };
}

type KafkaServerOptions = NonNullable<KafkaOptions['options']>;
/** Consumer settings besides the group id (timeouts, for example). */
export type ConsumerTuning = Omit<NonNullable<KafkaServerOptions['consumer']>, 'groupId'>;

/**
 * The `Transport.KAFKA` options for `NestFactory.createMicroservice`.
 *
 * Group id: Nest's Kafka server appends `postfixId` (default `-server`) to both `client.clientId`
 * and `consumer.groupId`, so that a `ClientKafka` in the same app (which appends `-client`) never
 * shares its group. Left at the default, `KAFKA_GROUP_ID=billing` would join group `billing-server`:
 * the lag your monitoring shows, the ACLs you grant and `kafka-consumer-groups --group billing`
 * would all miss it, and switching an existing consumer to Nest would silently start a new group.
 * `postfixId: ''` makes the effective group id exactly `KAFKA_GROUP_ID`.
 *
 * Returns a new object on every call: Nest writes the effective group id back into `consumer`, so
 * sharing one options object between two servers would make the second one `…-server-server`
 * (with a non-empty postfix).
 */
export function kafkaMicroserviceOptions(
  config: DownstreamConsumerConfig,
  tuning: ConsumerTuning = {},
): KafkaOptions {
  return {
    transport: Transport.KAFKA,
    options: {
      postfixId: '',
      client: { clientId: config.clientId, brokers: [...config.brokers] },
      consumer: { ...tuning, groupId: config.groupId },
      // Where a group with no committed offset starts; a group that committed resumes where it stopped.
      subscribe: { fromBeginning: config.fromBeginning },
      // Nest also starts a producer (for request-reply); naming the partitioner silences kafkajs' v2 notice.
      producer: { createPartitioner: Partitioners.DefaultPartitioner },
    },
  };
}
