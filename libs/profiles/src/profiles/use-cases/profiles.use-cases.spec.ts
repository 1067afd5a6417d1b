import { Logger } from '@nestjs/common';
import {
  type CloudEvent,
  DECLARED_MODULE_SETTINGS,
  LLM_CHAT_KIND,
  MASK_TOKEN,
  type ProfilesUpdatedPayload,
  ServiceCallError,
  Topics,
} from '@flowplane/contracts';
import { MemoryEventBus } from '@flowplane/platform/bus';
import type { ServiceClients } from '@flowplane/platform/service';
import { createMemoryStore, type Store } from '@flowplane/platform/store';
import { SettingsReader } from '../../settings/settings-reader';
import { KindRegistry } from '../kinds/kind.registry';
import { LiveOptionsClient } from '../kinds/live-options.client';
import { ProfileRepository } from '../persistence/profile.repository';
import { ProfilesOutbox } from '../persistence/profiles.outbox';
import { ProfilesException } from '../profiles.exception';
import { TEST_KIND, TEST_SETTINGS } from '../testing/profiles.fixtures';
import { DeleteProfileUseCase } from './delete-profile.use-case';
import { DuplicateProfileUseCase } from './duplicate-profile.use-case';
import { ListKindsUseCase } from './list-kinds.use-case';
import { ProfileQueries } from './profile.queries';
import { ResolveProfileUseCase } from './resolve-profile.use-case';
import { UpdateProfileUseCase } from './update-profile.use-case';
import { UpsertProfileUseCase } from './upsert-profile.use-case';

/** A settings reader with fixed answers, standing in for the settings feature. */
class FakeSettingsReader extends SettingsReader {
  values = new Map<string, { value: unknown; source: 'stored' | 'env' | 'default' | 'unset' }>();
  async effective(module: string, key: string) {
    return this.values.get(`${module}/${key}`) ?? { value: undefined, source: 'unset' as const };
  }
}

async function rejection(
  p: Promise<unknown>,
): Promise<{ status: number; code: string; message: string; details?: unknown }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ProfilesException)
      return { status: e.status, code: e.code, message: e.message, ...(e.body ?? {}) };
    throw e;
  }
  throw new Error('expected a rejection');
}

describe('profile use cases (memory store and bus)', () => {
  let store: Store;
  let bus: MemoryEventBus;
  let outbox: ProfilesOutbox;
  let events: ProfilesUpdatedPayload[];
  let eventTexts: string[];
  let liveAnswer: { status: number; body?: unknown };
  let settings: FakeSettingsReader;
  let upsert: UpsertProfileUseCase;
  let update: UpdateProfileUseCase;
  let remove: DeleteProfileUseCase;
  let duplicate: DuplicateProfileUseCase;
  let resolve: ResolveProfileUseCase;
  let queries: ProfileQueries;
  let listKinds: ListKindsUseCase;

  const llm = { module: 'llm', kind: 'llm-chat' };
  const openai = {
    ...llm,
    profileId: 'openai',
    name: 'OpenAI',
    config: { providerID: 'openai', apiKey: 'sk-live-123', model: 'gpt-4o-mini', temperature: '0.2' },
  };

  const waitForEvents = async (n: number) => {
    const deadline = Date.now() + 3000;
    while (events.length < n) {
      if (Date.now() > deadline) throw new Error(`expected ${n} events, got ${events.length}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(new Logger()));

  beforeEach(async () => {
    store = createMemoryStore();
    bus = new MemoryEventBus({ logger: { warn: () => undefined, error: () => undefined } });
    events = [];
    eventTexts = [];
    await bus.subscribe(
      [Topics.ProfilesUpdated],
      { groupId: 'test', fromBeginning: true },
      async (e: CloudEvent<ProfilesUpdatedPayload>) => {
        events.push(e.data);
        eventTexts.push(JSON.stringify(e));
      },
    );
    liveAnswer = { status: 404 };
    const clients = {
      for: () => ({
        get: async () => {
          if (liveAnswer.status !== 200) {
            throw new ServiceCallError('flow-runtime answered', {
              service: 'flow-runtime',
              method: 'GET',
              url: 'http://x/internal/options',
              status: liveAnswer.status,
              attempts: 1,
            });
          }
          return liveAnswer.body;
        },
      }),
    } as unknown as ServiceClients;
    const kinds = new KindRegistry(
      [LLM_CHAT_KIND, TEST_KIND],
      [...DECLARED_MODULE_SETTINGS.filter((m) => m.module !== 'llm'), ...TEST_SETTINGS],
    );
    const live = new LiveOptionsClient(clients, { ttlMs: 1, failureTtlMs: 1 });
    const repo = new ProfileRepository(store);
    await repo.ensureIndexes();
    outbox = new ProfilesOutbox(store, bus);
    outbox.onApplicationBootstrap();
    settings = new FakeSettingsReader();
    upsert = new UpsertProfileUseCase(kinds, repo, outbox, live);
    update = new UpdateProfileUseCase(kinds, repo, outbox, live);
    remove = new DeleteProfileUseCase(kinds, repo, outbox);
    duplicate = new DuplicateProfileUseCase(kinds, repo, outbox, live);
    resolve = new ResolveProfileUseCase(kinds, repo, settings);
    queries = new ProfileQueries(kinds, repo);
    listKinds = new ListKindsUseCase(kinds, live);
  });

  afterEach(async () => {
    await outbox.beforeApplicationShutdown();
    await bus.close();
    await store.close();
  });

  describe('create and upsert', () => {
    it('creates a profile, masks the secret in the answer, normalizes numeric strings and announces it', async () => {
      const { profile, created } = await upsert.execute(openai);
      expect(created).toBe(true);
      expect(profile).toMatchObject({
        ...llm,
        profileId: 'openai',
        name: 'OpenAI',
        config: { providerID: 'openai', apiKey: MASK_TOKEN, model: 'gpt-4o-mini', temperature: 0.2 },
        secretsSet: ['apiKey'],
      });
      expect(profile.createdAt).toBe(profile.updatedAt);
      await waitForEvents(1);
      expect(events).toEqual([{ ...llm, profileId: 'openai', action: 'created' }]);
    });

    it('replaces an existing profile on upsert, keeping createdAt, and announces an update', async () => {
      const first = await upsert.execute(openai);
      const second = await upsert.execute({
        ...openai,
        name: 'OpenAI 2',
        config: { providerID: 'openai', apiKey: MASK_TOKEN },
      });
      expect(second.created).toBe(false);
      expect(second.profile).toMatchObject({
        name: 'OpenAI 2',
        config: { providerID: 'openai', apiKey: MASK_TOKEN },
        createdAt: first.profile.createdAt,
      });
      expect(await queries.getInternal({ ...llm, profileId: 'openai' })).toMatchObject({
        config: { providerID: 'openai', apiKey: 'sk-live-123' },
      });
      await waitForEvents(2);
      expect(events.map((e) => e.action)).toEqual(['created', 'updated']);
    });

    it('refuses an invalid config with every failing field, writes nothing and announces nothing', async () => {
      const err = await rejection(
        upsert.execute({
          ...openai,
          config: { apiKey: 5, temperature: 'warm', replyStyle: 'chatty', colour: 'red' },
        }),
      );
      expect(err).toEqual({
        status: 400,
        code: 'PROFILE_CONFIG_INVALID',
        message:
          'invalid input: config.apiKey, config.temperature, config.replyStyle, config.colour, config.providerID',
        details: [
          { field: 'config.apiKey', problems: ['apiKey must be a string'] },
          { field: 'config.temperature', problems: ['temperature must be a number'] },
          {
            field: 'config.replyStyle',
            problems: ['replyStyle must be one of: short, normal, detailed'],
          },
          { field: 'config.colour', problems: ['colour is not a field of kind llm-chat'] },
          { field: 'config.providerID', problems: ['providerID is required'] },
        ],
      });
      expect(await queries.list()).toEqual([]);
      expect(await outbox.outbox.pending()).toBe(0);
      expect(events).toEqual([]);
    });

    it('answers 404 for an unknown kind or a kind under the wrong module', async () => {
      expect(await rejection(upsert.execute({ ...openai, kind: 'nope' }))).toMatchObject({
        status: 404,
        code: 'PROFILE_KIND_NOT_FOUND',
      });
      expect(await rejection(upsert.execute({ ...openai, module: 'test' }))).toMatchObject({
        status: 404,
        message: 'no profile kind "llm-chat" in module "test"',
      });
    });

    it('checks providerID against the live provider list when flow-runtime answers it', async () => {
      liveAnswer = { status: 200, body: ['local', 'ollama'] };
      expect(await rejection(upsert.execute(openai))).toMatchObject({
        details: [{ field: 'config.providerID', problems: ['providerID must be one of: local, ollama'] }],
      });
      expect((await upsert.execute({ ...openai, config: { providerID: 'ollama' } })).created).toBe(true);
    });

    it('lets two racing upserts of a new id both succeed, last write wins, one event each', async () => {
      const results = await Promise.all([
        upsert.execute({ ...openai, name: 'first' }),
        upsert.execute({ ...openai, name: 'second' }),
      ]);
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      const stored = await queries.list();
      expect(stored).toHaveLength(1);
      // The write that ran last (the update) is what is stored.
      expect(stored[0].name).toBe(results.find((r) => !r.created)!.profile.name);
      await waitForEvents(2);
      expect(events.map((e) => e.action).sort()).toEqual(['created', 'updated']);
    });
  });

  describe('masking round trip', () => {
    it('keeps a secret sent back masked, clears it on an empty string, and never lets it out', async () => {
      await upsert.execute(openai);
      const kept = await update.execute(
        { ...llm, profileId: 'openai' },
        { config: { apiKey: MASK_TOKEN, model: 'gpt-4o' } },
      );
      expect(kept.config).toMatchObject({ apiKey: MASK_TOKEN, model: 'gpt-4o' });
      expect(kept.secretsSet).toEqual(['apiKey']);
      expect((await queries.getInternal({ ...llm, profileId: 'openai' })).config.apiKey).toBe('sk-live-123');

      const cleared = await update.execute({ ...llm, profileId: 'openai' }, { config: { apiKey: '' } });
      expect(cleared.config).not.toHaveProperty('apiKey');
      expect(cleared.secretsSet).toEqual([]);
      expect((await queries.getInternal({ ...llm, profileId: 'openai' })).config).not.toHaveProperty(
        'apiKey',
      );

      const views = JSON.stringify([await queries.list(), await queries.listOfKind('llm-chat')]);
      expect(views).not.toContain('sk-live-123');
      await waitForEvents(3);
      expect(eventTexts.join('\n')).not.toContain('sk-live-123');
    });
  });

  describe('update and delete', () => {
    it('merges an update over the stored profile and keeps what the body omits', async () => {
      await upsert.execute({ ...openai, description: 'team key' });
      const updated = await update.execute({ ...llm, profileId: 'openai' }, { name: 'Renamed' });
      expect(updated).toMatchObject({
        name: 'Renamed',
        description: 'team key',
        config: { model: 'gpt-4o-mini', temperature: 0.2 },
      });
      const noDescription = await update.execute({ ...llm, profileId: 'openai' }, { description: '' });
      expect(noDescription).not.toHaveProperty('description');
    });

    it('takes back the view it answered: identity equal to the address and read-only fields are ignored', async () => {
      const view = await upsert.execute(openai);
      const again = await update.execute({ ...llm, profileId: 'openai' }, { ...view.profile, secretsSet: [], name: 'Same' });
      expect(again).toMatchObject({ ...llm, profileId: 'openai', name: 'Same', secretsSet: ['apiKey'], createdAt: view.profile.createdAt });
      const stored = await queries.get({ ...llm, profileId: 'openai' });
      expect(stored.config).toEqual({ providerID: 'openai', apiKey: MASK_TOKEN, model: 'gpt-4o-mini', temperature: 0.2 });
    });

    it('refuses an identity that differs from the address with 400 naming the fields, before any lookup', async () => {
      await upsert.execute(openai);
      expect(
        await rejection(update.execute({ ...llm, profileId: 'openai' }, { module: 'llm', profileId: 'other', name: 'x' })),
      ).toEqual({
        status: 400,
        code: 'PROFILE_IDENTITY_MISMATCH',
        message: 'invalid input: profileId',
        details: [{ field: 'profileId', problems: ['profileId must equal the path ("openai") or be left out; a profile keeps its address'] }],
      });
      // 400, not 404: the body is wrong whatever the path names.
      expect(await rejection(update.execute({ ...llm, profileId: 'ghost' }, { kind: 'other' }))).toMatchObject({ status: 400 });
      expect((await queries.get({ ...llm, profileId: 'openai' })).name).toBe('OpenAI');
    });

    it('answers 404 for updating or deleting a missing profile', async () => {
      expect(await rejection(update.execute({ ...llm, profileId: 'ghost' }, { name: 'x' }))).toMatchObject({
        status: 404,
        code: 'PROFILE_NOT_FOUND',
        message: 'profile not found: llm/llm-chat/ghost',
      });
      expect(await rejection(remove.execute({ ...llm, profileId: 'ghost' }))).toMatchObject({
        status: 404,
        code: 'PROFILE_NOT_FOUND',
      });
      expect(
        await rejection(remove.execute({ module: 'llm', kind: 'ghost-kind', profileId: 'x' })),
      ).toMatchObject({ status: 404, code: 'PROFILE_KIND_NOT_FOUND' });
    });

    it('deletes a profile and announces it', async () => {
      await upsert.execute(openai);
      expect(await remove.execute({ ...llm, profileId: 'openai' })).toEqual({
        ...llm,
        profileId: 'openai',
        deleted: true,
      });
      expect(await rejection(queries.get({ ...llm, profileId: 'openai' }))).toMatchObject({ status: 404 });
      await waitForEvents(2);
      expect(events[1]).toEqual({ ...llm, profileId: 'openai', action: 'deleted' });
    });
  });

  describe('duplicate', () => {
    it('names copies <src>-copy, then <src>-copy-2, and copies secrets as stored', async () => {
      await upsert.execute(openai);
      const first = await duplicate.execute({ ...llm, profileId: 'openai' });
      const second = await duplicate.execute({ ...llm, profileId: 'openai' }, { newProfileId: '' });
      expect([first.profileId, second.profileId]).toEqual(['openai-copy', 'openai-copy-2']);
      expect(first).toMatchObject({
        name: 'OpenAI (copy)',
        config: { apiKey: MASK_TOKEN },
        secretsSet: ['apiKey'],
      });
      expect((await queries.getInternal({ ...llm, profileId: 'openai-copy-2' })).config).toEqual({
        providerID: 'openai',
        apiKey: 'sk-live-123',
        model: 'gpt-4o-mini',
        temperature: 0.2,
      });
      await waitForEvents(3);
      expect(events.slice(1)).toEqual([
        { ...llm, profileId: 'openai-copy', action: 'created' },
        { ...llm, profileId: 'openai-copy-2', action: 'created' },
      ]);
    });

    it('gives concurrent duplicates distinct ids', async () => {
      await upsert.execute(openai);
      const copies = await Promise.all(
        [1, 2, 3].map(() => duplicate.execute({ ...llm, profileId: 'openai' })),
      );
      expect(copies.map((c) => c.profileId).sort()).toEqual([
        'openai-copy',
        'openai-copy-2',
        'openai-copy-3',
      ]);
    });

    it('applies validated configPatches under the given id and name', async () => {
      await upsert.execute(openai);
      const clone = await duplicate.execute(
        { ...llm, profileId: 'openai' },
        {
          newProfileId: 'staging',
          newName: 'Staging',
          configPatches: { model: 'gpt-4o', temperature: '1', apiKey: MASK_TOKEN },
        },
      );
      expect(clone).toMatchObject({
        profileId: 'staging',
        name: 'Staging',
        config: { model: 'gpt-4o', temperature: 1, apiKey: MASK_TOKEN },
      });
      expect((await queries.getInternal({ ...llm, profileId: 'staging' })).config.apiKey).toBe('sk-live-123');
      expect(
        await rejection(
          duplicate.execute(
            { ...llm, profileId: 'openai' },
            { configPatches: { temperature: 'hot', providerID: '' } },
          ),
        ),
      ).toMatchObject({
        status: 400,
        details: [
          { field: 'configPatches.temperature', problems: ['temperature must be a number'] },
          { field: 'configPatches.providerID', problems: ['providerID is required'] },
        ],
      });
    });

    it('answers 409 when newProfileId is taken and 404 for a missing source', async () => {
      await upsert.execute(openai);
      await upsert.execute({ ...openai, profileId: 'taken' });
      expect(
        await rejection(duplicate.execute({ ...llm, profileId: 'openai' }, { newProfileId: 'taken' })),
      ).toEqual({
        status: 409,
        code: 'PROFILE_EXISTS',
        message: 'profile already exists: llm/llm-chat/taken',
      });
      expect(await rejection(duplicate.execute({ ...llm, profileId: 'ghost' }))).toMatchObject({
        status: 404,
        code: 'PROFILE_NOT_FOUND',
      });
    });
  });

  describe('resolve (provenance)', () => {
    const test = { module: 'test', kind: 'test-kind' };

    it('reports node, profile, setting and default layers and masks secrets from any layer', async () => {
      await upsert.execute({
        ...test,
        profileId: 'p',
        name: 'P',
        config: { endpoint: 'https://x.test', token: 'tok-secret', limit: 3 },
      });
      settings.values.set('llm/default_model', { value: 'mistral', source: 'stored' });
      settings.values.set('llm/api_key', { value: 'env-secret', source: 'env' });
      settings.values.set('llm/retries', { value: 2, source: 'default' });
      const out = await resolve.execute({
        ...test,
        profileId: 'p',
        config: { limit: 10, endpoint: 'https://node.test', token: '' },
      });
      expect(out.sources).toEqual({
        endpoint: 'node',
        token: 'node',
        limit: 'node',
        model: 'setting',
        apiKey: 'setting',
        style: 'default',
        retries: 'default',
      });
      expect(out.values).toEqual({
        endpoint: 'https://node.test',
        token: '',
        limit: 10,
        model: 'mistral',
        apiKey: MASK_TOKEN,
        style: 'long',
        retries: 2,
      });
    });

    it('lets a blank overridable node value defer to the lower layers', async () => {
      await upsert.execute(openai);
      const out = await resolve.execute({
        ...llm,
        profileId: 'openai',
        config: { model: '', temperature: null, systemPrompt: 'Be brief.' },
      });
      expect(out.sources).toEqual({
        providerID: 'profile',
        apiKey: 'profile',
        model: 'profile',
        temperature: 'profile',
        systemPrompt: 'node',
      });
      expect(out.values).toEqual({
        providerID: 'openai',
        apiKey: MASK_TOKEN,
        model: 'gpt-4o-mini',
        temperature: 0.2,
        systemPrompt: 'Be brief.',
      });
    });

    it('reports a setting that only has its default as the default layer, and answers 404 for a missing profile', async () => {
      await upsert.execute({ ...test, profileId: 'p', name: 'P', config: { endpoint: 'https://x.test' } });
      settings.values.set('llm/default_model', { value: 'llama3', source: 'default' });
      expect(await resolve.execute({ ...test, profileId: 'p' })).toEqual({
        values: { endpoint: 'https://x.test', model: 'llama3', style: 'long', retries: 2 },
        sources: { endpoint: 'profile', model: 'default', style: 'default', retries: 'default' },
      });
      expect(await rejection(resolve.execute({ ...test, profileId: 'ghost' }))).toMatchObject({
        status: 404,
      });
    });
  });

  describe('reads', () => {
    it('lists kinds with live options, or marks them unavailable', async () => {
      const down = await listKinds.execute();
      expect(down.find((k) => k.id === 'llm-chat')!.fields.find((f) => f.key === 'providerID')).toMatchObject(
        {
          options_ref: 'llm.providers',
          optionsUnavailable: true,
          optionsUnavailableReason: 'flow-runtime answered 404',
        },
      );
      liveAnswer = { status: 200, body: { options: ['local'] } };
      await new Promise((r) => setTimeout(r, 5));
      const up = await listKinds.execute();
      const field = up.find((k) => k.id === 'llm-chat')!.fields.find((f) => f.key === 'providerID')!;
      expect(field.options).toEqual(['local']);
      expect(field).not.toHaveProperty('optionsUnavailable');
      expect(up.find((k) => k.id === 'test-kind')!.fields.find((f) => f.key === 'apiKey')).toMatchObject({
        setting_ref: 'llm.api_key',
        sensitive: true,
        env_var: 'LLM_API_KEY',
      });
    });

    it('lists profiles of one kind and answers 404 for an unknown kind', async () => {
      await upsert.execute(openai);
      await upsert.execute({
        module: 'test',
        kind: 'test-kind',
        profileId: 't',
        name: 'T',
        config: { endpoint: 'https://x.test' },
      });
      expect((await queries.listOfKind('llm-chat')).map((p) => p.profileId)).toEqual(['openai']);
      expect((await queries.list()).map((p) => p.profileId)).toEqual(['openai', 't']);
      expect(await rejection(queries.listOfKind('nope'))).toMatchObject({ status: 404 });
    });
  });
});
