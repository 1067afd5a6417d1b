import SwaggerParser from '@apidevtools/swagger-parser';
import { rmSync } from 'node:fs';
import { type CloudEvent, MASK_TOKEN, type ProfilesUpdatedPayload, Topics } from '@flowplane/contracts';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, serviceToken, tempDir, TEST_SECRET, token } from '../support/http';

const SECRET = 'sk-e2e-very-secret-4242';

describe('profiles through the gateway', () => {
  let platform: Standalone;
  let dataDir: string;
  let base: string;
  let profilesUrl: string;
  const events: Array<CloudEvent<ProfilesUpdatedPayload>> = [];
  const tokens: Record<string, string> = {};

  const json = (method: string, body?: unknown): RequestInit => ({
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const api = (path: string, init: RequestInit & { bearer?: string } = {}) =>
    call(`${base}${path}`, { bearer: tokens.admin, ...init });
  const create = (
    profileId: string,
    config: Record<string, unknown> = { providerID: 'openai', apiKey: SECRET, model: 'gpt-4o-mini' },
    extra: Record<string, unknown> = {},
  ) =>
    api(
      '',
      json('POST', {
        module: 'llm',
        kind: 'llm-chat',
        profileId,
        name: `Profile ${profileId}`,
        config,
        ...extra,
      }),
    );
  const internal = async (path: string) =>
    call(`${profilesUrl}/internal/profiles/${path}`, { bearer: await serviceToken('e2e', 'profiles', ['internal:profiles:list', 'internal:profiles:resolve']) });
  const eventsFor = (profileId: string) =>
    events.filter((e) => e.data.profileId === profileId).map((e) => e.data.action);
  async function until(what: string, predicate: () => boolean, timeoutMs = 3000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  beforeAll(async () => {
    dataDir = tempDir('profiles-e2e');
    platform = await startStandalone({
      env: {
        ...process.env,
        PORT: '0',
        STORE: 'memory',
        DATA_DIR: dataDir,
        AUTH_JWT_SECRET: TEST_SECRET,
        GATEWAY_RATE_LIMIT: '0',
        LOG_LEVEL: 'silent',
      },
    });
    base = `${platform.url}/api/v1/admin/profiles`;
    profilesUrl = platform.services.find((s) => s.name === 'profiles')!.url;
    await platform.bus.subscribe(
      [Topics.ProfilesUpdated],
      { groupId: 'e2e-profiles-watch', fromBeginning: true },
      async (e: CloudEvent<ProfilesUpdatedPayload>) => {
        events.push(e);
      },
    );
    Object.assign(tokens, {
      admin: await token('admin', ['admin:access', 'profiles:*']),
      reader: await token('reader', ['admin:access', 'profiles:read']),
      writer: await token('writer', ['admin:access', 'profiles:write']),
      star: await token('star', ['admin:access', 'profiles:*']),
      root: await token('root', [], { superuser: true }),
      adminOnly: await token('plain-admin', ['admin:access']),
      noAdmin: await token('outsider', ['profiles:*']),
      inactive: await token('gone', ['admin:access', 'profiles:*'], { active: false }),
    });
    expect((await create('fixture')).status).toBe(201);
  });

  afterAll(async () => {
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('permission matrix', () => {
    let n = 0;
    interface Route {
      name: string;
      access: 'read' | 'write';
      method: string;
      path: () => Promise<string> | string;
      body?: () => unknown;
      ok: number[];
    }
    const routes: Route[] = [
      { name: 'GET /', access: 'read', method: 'GET', path: () => '', ok: [200] },
      { name: 'GET /kinds', access: 'read', method: 'GET', path: () => '/kinds', ok: [200] },
      { name: 'GET /kinds/{kind}', access: 'read', method: 'GET', path: () => '/kinds/llm-chat', ok: [200] },
      {
        name: 'GET /{module}/{kind}/{id}',
        access: 'read',
        method: 'GET',
        path: () => '/llm/llm-chat/fixture',
        ok: [200],
      },
      {
        name: 'POST /resolve',
        access: 'read',
        method: 'POST',
        path: () => '/resolve',
        body: () => ({ module: 'llm', kind: 'llm-chat', profileId: 'fixture', config: {} }),
        ok: [200],
      },
      {
        name: 'POST /',
        access: 'write',
        method: 'POST',
        path: () => '',
        body: () => ({
          module: 'llm',
          kind: 'llm-chat',
          profileId: 'matrix',
          name: 'Matrix',
          config: { providerID: 'local' },
        }),
        ok: [200, 201],
      },
      {
        name: 'PUT /{module}/{kind}/{id}',
        access: 'write',
        method: 'PUT',
        path: () => '/llm/llm-chat/fixture',
        body: () => ({ name: 'Fixture' }),
        ok: [200],
      },
      {
        name: 'DELETE /{module}/{kind}/{id}',
        access: 'write',
        method: 'DELETE',
        path: async () => {
          const id = `matrix-del-${++n}`;
          expect((await create(id, { providerID: 'local' })).status).toBe(201);
          return `/llm/llm-chat/${id}`;
        },
        ok: [200],
      },
      {
        name: 'POST /{module}/{kind}/{id}/duplicate',
        access: 'write',
        method: 'POST',
        path: () => '/llm/llm-chat/fixture/duplicate',
        body: () => ({}),
        ok: [201],
      },
    ];

    const send = async (r: Route, bearer: string | undefined) =>
      call(`${base}${await r.path()}`, { ...json(r.method, r.body?.()), ...(bearer ? { bearer } : {}) });

    it.each(routes)(
      '$name: 401 without a token, 403 for the wrong perm, no admin:access, or an inactive user',
      async (r) => {
        const none = await send(r, undefined);
        expect(none.status).toBe(401);
        expect(none.body).toMatchObject({ statusCode: 401, message: 'missing bearer token' });
        // Every profiles permission reads; only profiles:write and profiles:* write.
        if (r.access === 'write') {
          const wrong = await send(r, tokens.reader);
          expect(wrong.status).toBe(403);
          expect(wrong.body.message).toBe('requires one of: profiles:write, profiles:*');
        }
        const adminOnly = await send(r, tokens.adminOnly);
        expect(adminOnly.status).toBe(403);
        expect(adminOnly.body.message).toBe(
          r.access === 'read'
            ? 'requires one of: profiles:read, profiles:write, profiles:*'
            : 'requires one of: profiles:write, profiles:*',
        );
        const noAdmin = await send(r, tokens.noAdmin);
        expect(noAdmin.status).toBe(403);
        expect(noAdmin.body.message).toBe('missing permission: admin:access');
        const inactive = await send(r, tokens.inactive);
        expect(inactive.status).toBe(403);
        expect(inactive.body.message).toBe('user is inactive');
      },
    );

    it.each(routes)('$name: the right perm, profiles:* and a superuser pass (any profiles perm reads)', async (r) => {
      for (const who of [...(r.access === 'read' ? ['reader', 'writer'] : ['writer']), 'star', 'root']) {
        const res = await send(r, tokens[who]);
        expect({ who, status: res.status, body: r.ok.includes(res.status) ? 'ok' : res.body }).toEqual({
          who,
          status: res.status,
          body: 'ok',
        });
      }
    });
  });

  describe('create, read, update, delete', () => {
    it('creates (201) and upserts (200) a profile, answering it masked with secretsSet', async () => {
      const created = await create(
        'crud',
        { providerID: 'openai', apiKey: SECRET, model: 'gpt-4o-mini', temperature: '0.3' },
        { description: 'for e2e' },
      );
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        module: 'llm',
        kind: 'llm-chat',
        profileId: 'crud',
        name: 'Profile crud',
        description: 'for e2e',
        config: { providerID: 'openai', apiKey: MASK_TOKEN, model: 'gpt-4o-mini', temperature: 0.3 },
        secretsSet: ['apiKey'],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const again = await create('crud', { providerID: 'openai', apiKey: MASK_TOKEN, model: 'gpt-4o' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({
        config: { providerID: 'openai', apiKey: MASK_TOKEN, model: 'gpt-4o' },
        createdAt: created.body.createdAt,
      });
      expect(again.body).not.toHaveProperty('description');
    });

    it('lists every profile and the profiles of one kind, masked', async () => {
      const all = await api('', { bearer: tokens.reader });
      expect(all.status).toBe(200);
      expect(all.body.map((p: any) => p.profileId)).toEqual(expect.arrayContaining(['fixture', 'crud']));
      const ofKind = await api('/kinds/llm-chat', { bearer: tokens.reader });
      expect(ofKind.status).toBe(200);
      expect(ofKind.body.every((p: any) => p.kind === 'llm-chat')).toBe(true);
      expect(all.text + ofKind.text).not.toContain(SECRET);
      expect(ofKind.body.find((p: any) => p.profileId === 'crud')).toMatchObject({
        config: { apiKey: MASK_TOKEN },
        secretsSet: ['apiKey'],
      });
    });

    it('gets, updates and deletes one profile', async () => {
      const got = await api('/llm/llm-chat/crud', { bearer: tokens.reader });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ profileId: 'crud', config: { apiKey: MASK_TOKEN } });
      const put = await api('/llm/llm-chat/crud', {
        ...json('PUT', { name: 'Renamed', config: { temperature: 1, model: '' } }),
        bearer: tokens.writer,
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        name: 'Renamed',
        config: { providerID: 'openai', apiKey: MASK_TOKEN, temperature: 1 },
      });
      expect(put.body.config).not.toHaveProperty('model');
      const del = await api('/llm/llm-chat/crud', { method: 'DELETE', bearer: tokens.writer });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ module: 'llm', kind: 'llm-chat', profileId: 'crud', deleted: true });
      expect((await api('/llm/llm-chat/crud')).status).toBe(404);
      await until('the crud events', () => eventsFor('crud').length >= 4);
      expect(eventsFor('crud')).toEqual(['created', 'updated', 'updated', 'deleted']);
    });

    it('lets two racing upserts of one new id both succeed, with one event each', async () => {
      const [a, b] = await Promise.all([
        create('race', { providerID: 'openai' }),
        create('race', { providerID: 'local' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      const stored = await api('/llm/llm-chat/race');
      const last = a.status === 200 ? a : b;
      expect(stored.body.config.providerID).toBe(last.body.config.providerID);
      await until('both race events', () => eventsFor('race').length >= 2);
      expect(eventsFor('race').sort()).toEqual(['created', 'updated']);
    });
  });

  describe('PUT of what GET answered', () => {
    it('accepts the GET object as it is, identity and read-only fields included, keeping the secret', async () => {
      expect((await create('round', { providerID: 'openai', apiKey: SECRET, model: 'gpt-4o-mini', temperature: 0.5 }, { description: 'before' })).status).toBe(201);
      const got = await api('/llm/llm-chat/round', { bearer: tokens.writer });
      expect(got.status).toBe(200);
      expect(Object.keys(got.body).sort()).toEqual(
        ['config', 'createdAt', 'description', 'kind', 'module', 'name', 'profileId', 'secretsSet', 'updatedAt'],
      );
      const edited = { ...got.body, name: 'Round trip', config: { ...got.body.config, model: 'gpt-4o' } };
      const put = await api('/llm/llm-chat/round', { ...json('PUT', edited), bearer: tokens.writer });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        ...got.body,
        name: 'Round trip',
        config: { providerID: 'openai', apiKey: MASK_TOKEN, model: 'gpt-4o', temperature: 0.5 },
        secretsSet: ['apiKey'],
        updatedAt: expect.any(String),
      });
      // Read-only fields sent back are ignored, whatever they say.
      const stale = await api('/llm/llm-chat/round', json('PUT', { ...put.body, secretsSet: [], createdAt: '2001-01-01T00:00:00.000Z', updatedAt: '2001-01-01T00:00:00.000Z' }));
      expect(stale.status).toBe(200);
      expect(stale.body.secretsSet).toEqual(['apiKey']);
      expect(stale.body.createdAt).toBe(got.body.createdAt);
      expect((await internal('llm/llm-chat/round')).body.config).toEqual({ providerID: 'openai', apiKey: SECRET, model: 'gpt-4o', temperature: 0.5 });
    });

    it('answers 400 naming each identity field that differs from the path, and changes nothing', async () => {
      expect((await create('ident')).status).toBe(201);
      const got = (await api('/llm/llm-chat/ident')).body;
      const res = await api('/llm/llm-chat/ident', json('PUT', { ...got, name: 'moved?', profileId: 'elsewhere', kind: 'llm-guard' }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'PROFILE_IDENTITY_MISMATCH',
        requestId: expect.any(String),
        message: 'invalid input: kind, profileId',
        details: [
          { field: 'kind', problems: ['kind must equal the path ("llm-chat") or be left out; a profile keeps its address'] },
          { field: 'profileId', problems: ['profileId must equal the path ("ident") or be left out; a profile keeps its address'] },
        ],
      });
      const module = await api('/llm/llm-chat/ident', json('PUT', { module: 'other' }));
      expect(module.status).toBe(400);
      expect(module.body.details.map((d: { field: string }) => d.field)).toEqual(['module']);
      expect((await api('/llm/llm-chat/elsewhere')).status).toBe(404);
      expect((await api('/llm/llm-chat/ident')).body.name).toBe('Profile ident');
    });

    it('still refuses unknown fields and ill-typed read-only fields', async () => {
      const got = (await api('/llm/llm-chat/fixture')).body;
      const res = await api('/llm/llm-chat/fixture', json('PUT', { ...got, owner: 'me', secretsSet: 'apiKey', createdAt: 'yesterday' }));
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['createdAt', 'owner', 'secretsSet']);
    });

    it('keeps the issue-14 rules on a round trip: a changed endpoint needs the secret again', async () => {
      expect((await create('pinned')).status).toBe(201);
      const got = (await api('/llm/llm-chat/pinned')).body;
      const moved = await api('/llm/llm-chat/pinned', json('PUT', { ...got, config: { ...got.config, baseURL: 'https://elsewhere.example/v1' } }));
      expect(moved.status).toBe(400);
      expect(moved.body.details.map((d: { field: string }) => d.field)).toEqual(['config.apiKey']);
      const partial = await api('/llm/llm-chat/pinned', json('PUT', { ...got, config: { ...got.config, apiKey: MASK_TOKEN.slice(1) } }));
      expect(partial.status).toBe(400);
      expect((await internal('llm/llm-chat/pinned')).body.config.apiKey).toBe(SECRET);
    });
  });

  describe('masking round trip', () => {
    it('keeps the secret when the mask comes back, clears it on an empty string, and never shows it', async () => {
      expect((await create('mask')).status).toBe(201);
      const masked = await api('/llm/llm-chat/mask');
      expect(masked.body.config.apiKey).toBe(MASK_TOKEN);
      // A UI sends back what it got: the mask keeps the stored secret.
      const back = await api('/llm/llm-chat/mask', json('PUT', { config: masked.body.config }));
      expect(back.status).toBe(200);
      expect(back.body.secretsSet).toEqual(['apiKey']);
      const stored = await internal('llm/llm-chat/mask');
      expect(stored.status).toBe(200);
      expect(stored.body).toEqual({
        module: 'llm',
        kind: 'llm-chat',
        profileId: 'mask',
        name: 'Profile mask',
        config: { providerID: 'openai', apiKey: SECRET, model: 'gpt-4o-mini' },
        updatedAt: expect.any(String),
      });
      const cleared = await api('/llm/llm-chat/mask', json('PUT', { config: { apiKey: '' } }));
      expect(cleared.body.secretsSet).toEqual([]);
      expect(cleared.body.config).not.toHaveProperty('apiKey');
      expect((await internal('llm/llm-chat/mask')).body.config).not.toHaveProperty('apiKey');
    });

    it('serves the internal route to service tokens only, never through the gateway, 404 when missing', async () => {
      expect(
        (await call(`${profilesUrl}/internal/profiles/llm/llm-chat/fixture`, { bearer: tokens.root })).status,
      ).toBe(403);
      expect(
        (
          await call(`${platform.url}/internal/profiles/llm/llm-chat/fixture`, {
            bearer: await serviceToken('e2e', 'profiles', ['internal:profiles:resolve']),
          })
        ).status,
      ).toBe(404);
      expect((await internal('llm/llm-chat/ghost')).status).toBe(404);
      expect((await internal('llm/nope/fixture')).status).toBe(404);
    });
  });

  describe('bad input', () => {
    it('answers 400 listing every failing config field', async () => {
      const res = await create('bad', {
        apiKey: 7,
        temperature: 'warm',
        replyStyle: 'chatty',
        baseURL: 'not a url',
        colour: 'red',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        code: 'PROFILE_CONFIG_INVALID',
        requestId: expect.any(String),
        message:
          'invalid input: config.apiKey, config.temperature, config.replyStyle, config.baseURL, config.colour, config.providerID',
        details: [
          { field: 'config.apiKey', problems: ['apiKey must be a string'] },
          { field: 'config.temperature', problems: ['temperature must be a number'] },
          {
            field: 'config.replyStyle',
            problems: ['replyStyle must be one of: short, normal, detailed'],
          },
          {
            field: 'config.baseURL',
            problems: ['baseURL must be an absolute URL (for example https://api.example.com/v1)'],
          },
          { field: 'config.colour', problems: ['colour is not a field of kind llm-chat'] },
          { field: 'config.providerID', problems: ['providerID is required'] },
        ],
      });
      expect(res.text).not.toContain('at ');
      expect((await api('/llm/llm-chat/bad')).status).toBe(404);
    });

    it('answers 400 for a malformed body, in the platform shape', async () => {
      const res = await api(
        '',
        json('POST', { module: 'llm', kind: 'llm-chat', profileId: 'has space', config: 'nope', extra: 1 }),
      );
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: any) => d.field).sort()).toEqual([
        'config',
        'extra',
        'name',
        'profileId',
      ]);
      const put = await api('/llm/llm-chat/fixture', json('PUT', { config: { temperature: 'hot' } }));
      expect(put.status).toBe(400);
      expect(put.body.details).toEqual([
        { field: 'config.temperature', problems: ['temperature must be a number'] },
      ]);
    });

    it('answers 404 for an unknown module, kind or id on every route', async () => {
      const cases: Array<[string, RequestInit]> = [
        ['/kinds/no-such-kind', {}],
        ['/llm/no-such-kind/fixture', {}],
        ['/nomodule/llm-chat/fixture', {}],
        ['/llm/llm-chat/ghost', {}],
        ['/llm/llm-chat/ghost', json('PUT', { name: 'x' })],
        ['/llm/llm-chat/ghost', { method: 'DELETE' }],
        ['/llm/llm-chat/ghost/duplicate', json('POST', {})],
        ['/resolve', json('POST', { module: 'llm', kind: 'llm-chat', profileId: 'ghost' })],
        ['', json('POST', { module: 'llm', kind: 'no-such-kind', profileId: 'x', name: 'x', config: {} })],
      ];
      for (const [path, init] of cases) {
        const res = await api(path, init);
        expect({ path, method: init.method ?? 'GET', status: res.status }).toEqual({
          path,
          method: init.method ?? 'GET',
          status: 404,
        });
        expect(res.body.code).toMatch(/^PROFILE_(KIND_)?NOT_FOUND$/);
      }
    });
  });

  describe('duplicate', () => {
    it('names copies -copy then -copy-2, copies the secret as stored, applies patches, 409 on a taken id', async () => {
      expect((await create('dup')).status).toBe(201);
      const first = await api('/llm/llm-chat/dup/duplicate', { method: 'POST' });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        profileId: 'dup-copy',
        name: 'Profile dup (copy)',
        config: { apiKey: MASK_TOKEN },
        secretsSet: ['apiKey'],
      });
      const second = await api(
        '/llm/llm-chat/dup/duplicate',
        json('POST', { newProfileId: '', configPatches: { model: 'llama3', temperature: '0.9' } }),
      );
      expect(second.status).toBe(201);
      expect(second.body).toMatchObject({
        profileId: 'dup-copy-2',
        config: { model: 'llama3', temperature: 0.9, apiKey: MASK_TOKEN },
      });
      expect((await internal('llm/llm-chat/dup-copy-2')).body.config.apiKey).toBe(SECRET);
      const named = await api(
        '/llm/llm-chat/dup/duplicate',
        json('POST', { newProfileId: 'dup-named', newName: 'Named' }),
      );
      expect(named.body).toMatchObject({ profileId: 'dup-named', name: 'Named' });
      const taken = await api('/llm/llm-chat/dup/duplicate', json('POST', { newProfileId: 'dup-named' }));
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ statusCode: 409, error: 'Conflict', code: 'PROFILE_EXISTS' });
      const badPatch = await api(
        '/llm/llm-chat/dup/duplicate',
        json('POST', { configPatches: { temperature: 'hot' } }),
      );
      expect(badPatch.status).toBe(400);
      expect(badPatch.body.details).toEqual([
        { field: 'configPatches.temperature', problems: ['temperature must be a number'] },
      ]);
    });
  });

  describe('kinds and resolve', () => {
    it('lists kinds with field schemas and marks the llm.providers options unavailable', async () => {
      const res = await api('/kinds', { bearer: tokens.reader });
      expect(res.status).toBe(200);
      const llm = res.body.find((k: any) => k.id === 'llm-chat');
      expect(llm).toMatchObject({ module: 'llm', name: 'LLM chat', icon: 'message-square' });
      expect(llm.fields.map((f: any) => f.key)).toEqual([
        'providerID',
        'apiKey',
        'baseURL',
        'model',
        'temperature',
        'systemPrompt',
        'maxTokens',
        'replyStyle',
        'examplesPolicy',
      ]);
      // The live option list comes from flow-runtime's /internal/options/llm.providers.
      const provider = llm.fields.find((f: any) => f.key === 'providerID');
      expect(provider).toMatchObject({ required: true, options_ref: 'llm.providers', options: ['local', 'ollama', 'openai', 'openai-compatible'] });
      expect(provider).not.toHaveProperty('optionsUnavailable');
      expect(llm.fields.find((f: any) => f.key === 'apiKey')).toMatchObject({
        sensitive: true,
        type: 'string',
      });
      expect(llm.fields.find((f: any) => f.key === 'replyStyle')).toMatchObject({
        options: ['short', 'normal', 'detailed'],
        overridable: true,
      });
    });

    it('resolves a node config over a profile with sources, masked', async () => {
      expect(
        (
          await create('res', {
            providerID: 'openai',
            apiKey: SECRET,
            model: 'gpt-4o-mini',
            temperature: 0.2,
          })
        ).status,
      ).toBe(201);
      const res = await api('/resolve', {
        ...json('POST', {
          module: 'llm',
          kind: 'llm-chat',
          profileId: 'res',
          config: { model: 'gpt-4o', temperature: '', systemPrompt: 'Be brief.' },
        }),
        bearer: tokens.reader,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        values: {
          providerID: 'openai',
          apiKey: MASK_TOKEN,
          model: 'gpt-4o',
          temperature: 0.2,
          systemPrompt: 'Be brief.',
        },
        sources: {
          providerID: 'profile',
          apiKey: 'profile',
          model: 'node',
          temperature: 'profile',
          systemPrompt: 'node',
        },
      });
    });
  });

  it('publishes profiles.updated for every write, without secrets', async () => {
    expect((await create('evt')).status).toBe(201);
    expect((await api('/llm/llm-chat/evt', json('PUT', { config: { model: 'x' } }))).status).toBe(200);
    expect((await api('/llm/llm-chat/evt/duplicate', { method: 'POST' })).status).toBe(201);
    expect((await api('/llm/llm-chat/evt', { method: 'DELETE' })).status).toBe(200);
    await until('the evt events', () => eventsFor('evt').length >= 3 && eventsFor('evt-copy').length >= 1);
    expect(eventsFor('evt')).toEqual(['created', 'updated', 'deleted']);
    const copy = events.find((e) => e.data.profileId === 'evt-copy')!;
    expect(copy.data).toEqual({ module: 'llm', kind: 'llm-chat', profileId: 'evt-copy', action: 'created' });
    expect(copy).toMatchObject({ type: 'profiles.updated', entitytype: 'profile', action: 'created' });
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain('sk-');
  });

  it('describes every profiles route with request and response schemas in the merged OpenAPI document', async () => {
    const res = await call(`${platform.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = res.body;
    const expected: Record<string, string[]> = {
      '/api/v1/admin/profiles': ['get', 'post'],
      '/api/v1/admin/profiles/kinds': ['get'],
      '/api/v1/admin/profiles/kinds/{kind}': ['get'],
      '/api/v1/admin/profiles/resolve': ['post'],
      '/api/v1/admin/profiles/{module}/{kind}/{id}': ['get', 'put', 'delete'],
      '/api/v1/admin/profiles/{module}/{kind}/{id}/duplicate': ['post'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const method of methods) {
        const op = doc.paths[path]?.[method];
        expect({ path, method, op: !!op }).toEqual({ path, method, op: true });
        expect(op.tags).toEqual(['profiles']);
        const ok = op.responses['200'] ?? op.responses['201'];
        expect(ok.content['application/json'].schema).toBeDefined();
        if (method === 'post' || method === 'put')
          expect(op.requestBody.content['application/json'].schema).toBeDefined();
      }
    }
    expect(Object.keys(doc.paths).some((p) => p.includes('/internal/'))).toBe(false);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });
});
