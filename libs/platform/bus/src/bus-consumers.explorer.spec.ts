import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { CloudEvent } from '@flowplane/contracts';
import { IsInt, IsString, Min } from 'class-validator';
import { BusConsumer } from './bus-consumer.decorator';
import { BusConsumersExplorer } from './bus-consumers.explorer';
import { BusModule } from './bus.module';
import { EVENT_BUS } from './bus.tokens';
import { DLQ_HEADERS, dlqTopic, type ConsumeContext, type EventBus } from './event-bus.port';
import { MemoryEventBus } from './memory-event-bus.adapter';
import { InvalidEventPayloadError, validatedHandler } from './validated-handler.util';

const silent = { warn: () => undefined, error: () => undefined };

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(what: string, predicate: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

class ProfileUpdated {
  @IsString()
  id!: string;

  @IsInt()
  @Min(1)
  version!: number;

  describe(): string {
    return `${this.id}@${this.version}`;
  }
}

describe('validatedHandler', () => {
  const ctx: ConsumeContext = {
    topic: 'profiles.updated',
    partition: 0,
    offset: '0',
    groupId: 'g',
    attempt: 1,
    headers: {},
  };
  const envelope = (data: unknown): CloudEvent => ({
    id: 'e1',
    source: '/test',
    type: 'profiles.updated',
    time: new Date().toISOString(),
    specversion: '1.0',
    datacontenttype: 'application/json',
    data,
  });

  it('hands the handler an instance of the payload class, stripped of unknown fields', async () => {
    const seen: ProfileUpdated[] = [];
    const handler = validatedHandler(ProfileUpdated, async (event) => void seen.push(event.data));
    await handler(envelope({ id: 'p1', version: 2, addedByNewerProducer: true }), ctx);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(ProfileUpdated);
    expect(seen[0].describe()).toBe('p1@2');
    expect(seen[0]).not.toHaveProperty('addedByNewerProducer');
  });

  it('rejects an invalid payload with a non-retriable error naming the problems, without calling the handler', async () => {
    let called = false;
    const handler = validatedHandler(ProfileUpdated, async () => {
      called = true;
    });
    const error = await handler(envelope({ id: 42, version: 0 }), ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidEventPayloadError);
    expect((error as InvalidEventPayloadError).retriable).toBe(false);
    expect((error as Error).message).toMatch(/id must be a string/);
    expect((error as Error).message).toMatch(/version must not be less than 1/);
    await expect(handler(envelope(null), ctx)).rejects.toThrow(/must be an object/);
    await expect(handler(envelope([1]), ctx)).rejects.toThrow(/must be an object/);
    expect(called).toBe(false);
  });
});

describe('BusModule with @BusConsumer', () => {
  const calls: Array<{ kind: string; data: unknown; ctx: ConsumeContext }> = [];
  let release: () => void = () => undefined;
  let slowStarted = false;

  @Injectable()
  class ProfileCache {
    readonly invalidated: string[] = [];
  }

  @Injectable()
  class ProfileListener {
    constructor(private readonly cache: ProfileCache) {}

    @BusConsumer('profiles.updated', { groupId: 'cache-invalidator', payload: ProfileUpdated })
    async onUpdated(event: CloudEvent<ProfileUpdated>, ctx: ConsumeContext): Promise<void> {
      // `this` is the provider instance, with its injected dependencies.
      this.cache.invalidated.push(event.data.describe());
      calls.push({ kind: 'updated', data: event.data, ctx });
    }

    @BusConsumer(['profiles.created', 'profiles.deleted'], { groupId: () => `audit-${process.pid}` })
    @BusConsumer('profiles.deleted', { groupId: 'second-registration' })
    async onAny(event: CloudEvent, ctx: ConsumeContext): Promise<void> {
      calls.push({ kind: `any:${ctx.groupId}`, data: event.data, ctx });
    }

    @BusConsumer('profiles.slow', { groupId: 'slow' })
    async onSlow(event: CloudEvent): Promise<void> {
      slowStarted = true;
      await new Promise<void>((resolve) => (release = resolve));
      calls.push({ kind: 'slow', data: event.data, ctx: {} as ConsumeContext });
    }

    notAConsumer(): string {
      return 'ignored';
    }
  }

  @Module({ providers: [ProfileCache, ProfileListener] })
  class ProfilesModule {}

  let bus: MemoryEventBus;
  let app: INestApplicationContext;

  beforeEach(async () => {
    calls.length = 0;
    slowStarted = false;
    bus = new MemoryEventBus({ logger: silent, retryDelayMs: 5 });
    @Module({ imports: [BusModule.forRoot({ bus }), ProfilesModule] })
    class AppModule {}
    app = await NestFactory.createApplicationContext(AppModule, { logger: false });
    await app.init();
  });

  afterEach(async () => {
    release();
    await app.close();
    await bus.close();
  });

  it('subscribes every decorated method at bootstrap, bound to its provider', async () => {
    expect(app.get<EventBus>(EVENT_BUS)).toBe(bus);
    const registrations = app.get(BusConsumersExplorer).registrations();
    expect(registrations.map((r) => `${r.method}:${r.groupId}`).sort()).toEqual(
      [
        'onAny:second-registration',
        `onAny:audit-${process.pid}`,
        'onSlow:slow',
        'onUpdated:cache-invalidator',
      ].sort(),
    );

    await bus.publish('profiles.updated', { id: 'p1', version: 3 }, { key: 'p1' });
    await bus.publish('profiles.deleted', { id: 'p1' }, { key: 'p1' });
    await waitFor('three deliveries', () => calls.length >= 3);
    expect(app.get(ProfileCache).invalidated).toEqual(['p1@3']);
    expect(calls.map((c) => c.kind).sort()).toEqual(
      ['any:audit-' + process.pid, 'any:second-registration', 'updated'].sort(),
    );
  });

  it('dead-letters an invalid payload without calling the method', async () => {
    const parked: Array<Record<string, string>> = [];
    await bus.subscribe(
      [dlqTopic('profiles.updated')],
      { groupId: 'dlq-reader', fromBeginning: true },
      async (_e, ctx) => {
        parked.push(ctx.headers);
      },
    );
    await bus.publish('profiles.updated', { id: 'p1', version: 'three' }, { key: 'p1' });
    await bus.publish('profiles.updated', { id: 'p1', version: 4 }, { key: 'p1' });
    await waitFor('the valid event after the invalid one', () => calls.length >= 1 && parked.length >= 1);
    expect(calls.map((c) => c.data)).toEqual([expect.objectContaining({ id: 'p1', version: 4 })]);
    expect(parked[0][DLQ_HEADERS.error]).toMatch(/version must be an integer/);
    expect(parked[0][DLQ_HEADERS.attempts]).toBe('1');
  });

  it('stops the consumers on shutdown after the in-flight handler finished, and closes nothing it does not own', async () => {
    await bus.publish('profiles.slow', { n: 1 });
    await waitFor('the slow handler to start', () => slowStarted);
    let closed = false;
    const closing = app.close().then(() => {
      closed = true;
    });
    await sleep(50);
    expect(closed).toBe(false);
    release();
    await closing;
    expect(calls.map((c) => c.kind)).toEqual(['slow']);
    // The shared bus stays usable for its owner; only the consumers are gone.
    await expect(bus.ping()).resolves.toBeUndefined();
    const stats = await bus.stats();
    expect(stats.consumers.find((c) => c.groupId === 'slow')?.lag).toBe(0);
    await bus.publish('profiles.updated', { id: 'p2', version: 1 });
    await sleep(50);
    expect(calls).toHaveLength(1);
  });

  it('closes a bus it created from options', async () => {
    @Module({ imports: [BusModule.forRoot({ bus: { bus: 'memory', logger: silent } })] })
    class OwningModule {}
    const ctx = await NestFactory.createApplicationContext(OwningModule, { logger: false });
    const owned = ctx.get<EventBus>(EVENT_BUS);
    expect(owned.kind).toBe('memory');
    await owned.ping();
    await ctx.close();
    await expect(owned.ping()).rejects.toThrow(/closed/);
  });

  it('builds the bus from injected configuration with forRootAsync', async () => {
    @Injectable()
    class Config {
      readonly bus = 'memory' as const;
    }
    @Module({ providers: [Config], exports: [Config] })
    class ConfigModule {}
    @Module({
      imports: [
        BusModule.forRootAsync({
          imports: [ConfigModule],
          inject: [Config],
          useFactory: (config: Config) => ({ bus: { bus: config.bus, logger: silent } }),
        }),
      ],
    })
    class AsyncModule {}
    const ctx = await NestFactory.createApplicationContext(AsyncModule, { logger: false });
    expect(ctx.get<EventBus>(EVENT_BUS).kind).toBe('memory');
    await ctx.close();
  });
});
