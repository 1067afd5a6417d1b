import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KafkaParser, ServerKafka } from '@nestjs/microservices';
import type * as contracts from '@flowplane/contracts';
import { stringify as stringifyYaml } from 'yaml';
import { buildAsyncApi } from '../../libs/gateway/src/asyncapi';
import { renderEventTypes } from '../../examples/downstream-consumer/src/asyncapi-to-ts';
import {
  decodeAttributes,
  decodeCloudEvent,
  headerText,
  InvalidEventError,
} from '../../examples/downstream-consumer/src/cloud-event';
import {
  DEFAULT_GROUP_ID,
  kafkaMicroserviceOptions,
  loadConfig,
} from '../../examples/downstream-consumer/src/config';
import { Deduplicator, InMemoryProcessedEventStore } from '../../examples/downstream-consumer/src/dedupe';
import type * as generated from '../../examples/downstream-consumer/src/events.generated';
import {
  GENERATED_FILE,
  generate,
  loadAsyncApi,
} from '../../examples/downstream-consumer/src/generate-types';

// Compile-time: the generated payload types are exactly the contracts' payload classes (field names,
// optionality, types). `npx tsc` fails here when the two drift apart.
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const sameHandoff: Equal<
  generated.AssistantHandoffRequestedPayload,
  contracts.AssistantHandoffRequestedPayload
> = true;
const sameProfiles: Equal<generated.ProfilesUpdatedPayload, contracts.ProfilesUpdatedPayload> = true;

const REGENERATE = 'node dist/examples/downstream-consumer/src/generate-types.js';

describe('downstream-consumer example: generated event types', () => {
  it(`events.generated.ts is what the current AsyncAPI document generates (if not: ${REGENERATE})`, async () => {
    expect([sameHandoff, sameProfiles]).toEqual([true, true]);
    const committed = readFileSync(GENERATED_FILE, 'utf8');
    expect(committed).toBe(await generate());
  });

  it('generates the same file from a gateway URL serving the document as YAML', async () => {
    const yaml = stringifyYaml(buildAsyncApi('9.9.9'));
    const server: Server = createServer((req, res) => {
      if (req.url !== '/api/v1/asyncapi.yaml') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/yaml; charset=utf-8' }).end(yaml);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/asyncapi.yaml`;
      expect(await generate({ url })).toBe(readFileSync(GENERATED_FILE, 'utf8'));
      await expect(loadAsyncApi({ url: url.replace('asyncapi', 'nope') })).rejects.toThrow(/answered 404/);
    } finally {
      server.close();
    }
  });

  it('notices a changed payload schema (the staleness check is not vacuous)', async () => {
    const doc = (await loadAsyncApi()) as { components: { schemas: Record<string, { properties: object }> } };
    const fresh = renderEventTypes(doc);
    doc.components.schemas.ProfilesUpdatedPayload.properties = {
      ...doc.components.schemas.ProfilesUpdatedPayload.properties,
      revision: { type: 'integer', minimum: 1, description: 'Write counter.' },
    };
    const changed = renderEventTypes(doc);
    expect(changed).not.toBe(fresh);
    expect(changed).toContain(
      '  /**\n   * Write counter.\n   * Constraints: minimum 1.\n   */\n  revision?: number;',
    );
  });

  it('refuses a document without the topic or that is not AsyncAPI 2', () => {
    expect(() => renderEventTypes({ asyncapi: '2.6.0', channels: {} })).toThrow(
      /topic assistant.handoff_requested is not a channel/,
    );
    expect(() => renderEventTypes({ asyncapi: '3.0.0', channels: {} })).toThrow(/2\.x only/);
    expect(() => renderEventTypes({ openapi: '3.0.0' })).toThrow(/not an AsyncAPI document/);
  });
});

describe('downstream-consumer example: CloudEvents headers', () => {
  const raw = {
    ce_id: Buffer.from('e-1'),
    ce_source: Buffer.from('/services/profiles'),
    ce_type: Buffer.from('profiles.updated'),
    ce_time: Buffer.from('2025-01-02T03:04:05.000Z'),
    ce_specversion: Buffer.from('1.0'),
    ce_subject: Buffer.from('["llm","llm-chat","p1"]'),
    ce_entitytype: Buffer.from('profile'),
    ce_action: Buffer.from('created'),
    'content-type': Buffer.from('application/json'),
  };
  const expected = {
    id: 'e-1',
    source: '/services/profiles',
    type: 'profiles.updated',
    time: '2025-01-02T03:04:05.000Z',
    specversion: '1.0',
    subject: '["llm","llm-chat","p1"]',
    entitytype: 'profile',
    action: 'created',
    datacontenttype: 'application/json',
  };

  it('decodes kafkajs Buffers and what Nest’s KafkaParser makes of them (it JSON-parses `[`/`{` values)', () => {
    expect(decodeAttributes(raw, 'profiles.updated')).toEqual(expected);
    const parsed = new KafkaParser().parse({ value: Buffer.from('{}'), headers: raw } as never) as {
      headers: Record<string, unknown>;
    };
    expect(parsed.headers.ce_subject).toEqual(['llm', 'llm-chat', 'p1']);
    expect(decodeAttributes(parsed.headers, 'profiles.updated')).toEqual(expected);
  });

  it('leaves absent extensions absent and rejects what is not a Flowplane CloudEvent', () => {
    const { ce_subject: _s, ce_entitytype: _e, ce_action: _a, ...minimal } = raw;
    expect(decodeAttributes(minimal, 'profiles.updated')).toEqual({
      id: 'e-1',
      source: '/services/profiles',
      type: 'profiles.updated',
      time: '2025-01-02T03:04:05.000Z',
      specversion: '1.0',
      datacontenttype: 'application/json',
    });
    const { ce_id: _id, ...noId } = raw;
    expect(() => decodeAttributes(noId, 'profiles.updated')).toThrow(
      new InvalidEventError('profiles.updated: header ce_id is missing'),
    );
    expect(() => decodeAttributes({ ...raw, ce_specversion: '0.3' }, 'profiles.updated')).toThrow(/not 1.0/);
    expect(() => decodeAttributes(raw, 'assistant.handoff_requested')).toThrow(/does not name this topic/);
    expect(() => decodeAttributes({ ...raw, ce_time: 'yesterday' }, 'profiles.updated')).toThrow(
      /not a time/,
    );
    expect(() => decodeAttributes({ ...raw, 'content-type': 'text/plain' }, 'profiles.updated')).toThrow(
      /not JSON/,
    );
    expect(() => headerText('ce_id', [Buffer.from('a'), Buffer.from('b')])).toThrow(/repeated 2 times/);
  });

  it('checks the payload against the fields the AsyncAPI document requires', () => {
    const data = { module: 'llm', kind: 'llm-chat', profileId: 'p1', action: 'created' };
    expect(decodeCloudEvent('profiles.updated', data, { headers: raw })).toEqual({ ...expected, data });
    expect(() => decodeCloudEvent('profiles.updated', { module: 'llm' }, { headers: raw })).toThrow(
      /payload lacks kind, profileId, action/,
    );
    expect(() => decodeCloudEvent('profiles.updated', 'text', { headers: raw })).toThrow(/not a JSON object/);
  });
});

describe('downstream-consumer example: deduplication', () => {
  const event = {
    id: 'e-1',
    source: '/services/assistant',
    type: 't',
    time: '',
    specversion: '1.0' as const,
  };

  it('runs an event once per (source, id), and again after a failed attempt', async () => {
    const dedupe = new Deduplicator(new InMemoryProcessedEventStore());
    const work = jest.fn(async () => undefined);
    expect(await dedupe.once(event, work)).toBe(true);
    expect(await dedupe.once(event, work)).toBe(false);
    expect(await dedupe.once({ ...event, source: '/services/other' }, work)).toBe(true);
    expect(work).toHaveBeenCalledTimes(2);

    const flaky = jest.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(undefined);
    await expect(dedupe.once({ ...event, id: 'e-2' }, flaky)).rejects.toThrow('down');
    expect(await dedupe.once({ ...event, id: 'e-2' }, flaky)).toBe(true);
    expect(await dedupe.once({ ...event, id: 'e-2' }, flaky)).toBe(false);
    expect(flaky).toHaveBeenCalledTimes(2);
  });

  it('skips a copy that arrives while the first is still being processed', async () => {
    const dedupe = new Deduplicator(new InMemoryProcessedEventStore());
    let finish!: () => void;
    const first = dedupe.once(event, () => new Promise<void>((r) => (finish = r)));
    expect(await dedupe.once(event, async () => undefined)).toBe(false);
    finish();
    expect(await first).toBe(true);
  });

  it('forgets the oldest processed keys beyond its capacity', async () => {
    const store = new InMemoryProcessedEventStore(2);
    for (const k of ['a', 'b', 'c']) {
      expect(await store.claim(k)).toBe(true);
      await store.complete(k);
    }
    expect(await store.claim('a')).toBe(true);
    expect(await store.claim('c')).toBe(false);
  });
});

describe('downstream-consumer example: configuration', () => {
  it('reads KAFKA_BROKERS, KAFKA_GROUP_ID, KAFKA_CLIENT_ID and KAFKA_FROM_BEGINNING', () => {
    expect(loadConfig({})).toEqual({
      brokers: ['localhost:9092'],
      groupId: DEFAULT_GROUP_ID,
      clientId: DEFAULT_GROUP_ID,
      fromBeginning: false,
    });
    expect(
      loadConfig({
        KAFKA_BROKERS: ' k1:9092, k2:9093 ',
        KAFKA_GROUP_ID: 'billing',
        KAFKA_CLIENT_ID: 'billing-1',
        KAFKA_FROM_BEGINNING: 'true',
      }),
    ).toEqual({
      brokers: ['k1:9092', 'k2:9093'],
      groupId: 'billing',
      clientId: 'billing-1',
      fromBeginning: true,
    });
    expect(() => loadConfig({ KAFKA_BROKERS: ' , ' })).toThrow(/KAFKA_BROKERS must list/);
    expect(() => loadConfig({ KAFKA_BROKERS: 'k1' })).toThrow(/k1 is not host:port/);
    expect(() => loadConfig({ KAFKA_GROUP_ID: ' ' })).toThrow(/must not be empty/);
  });

  it('makes Nest’s effective group id exactly KAFKA_GROUP_ID (postfixId "" instead of "-server")', () => {
    const config = loadConfig({ KAFKA_GROUP_ID: 'billing' });
    const exact = new ServerKafka(kafkaMicroserviceOptions(config).options!) as any;
    expect([exact.groupId, exact.clientId]).toEqual(['billing', 'billing']);
    // What the same options give without the override: Nest's default postfix.
    const { postfixId: _p, ...nestDefault } = kafkaMicroserviceOptions(config).options!;
    expect((new ServerKafka(nestDefault) as any).groupId).toBe('billing-server');
  });
});
