import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MASK_TOKEN } from '@flowplane/contracts';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, testEnv, token, until } from '../support/http';

/**
 * A profile's secret only ever goes to the endpoint stored with the profile. The attack: a flow
 * editor who may not read profiles selects a key-holding profile in an llm-chat node and points
 * `baseURL` at their own host, hoping the run sends them the key.
 */

const KEY = 'sk-canary-profile-secret-0001';
const LATER_KEY = 'sk-canary-later-secret-0002';

/** An OpenAI-compatible upstream that records the Authorization header and body of every call. */
interface Upstream {
  url: string;
  calls: Array<{ authorization?: string; body: any }>;
  close(): Promise<void>;
}

async function upstream(): Promise<Upstream> {
  const calls: Upstream['calls'] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      calls.push({ authorization: req.headers.authorization, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: body?.model ?? 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'upstream reply' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** start → node → end; the node's Error port is left unwired, so a refused step fails the run. */
function oneNodeFlow(node: { action_ref: string; config: Record<string, unknown> }) {
  return {
    name: 'One node',
    nodes: [
      { id: 'start', name: 'Start', kind: 'start' },
      { id: 'chat', name: 'Chat', kind: 'action', ...node },
      { id: 'end', name: 'End', kind: 'end' },
    ],
    edges: [
      { id: 'e1', from: 'start', to: 'chat' },
      { id: 'e2', from: 'chat', to: 'end', port: node.action_ref === 'svc/guard' ? 'Allow' : 'Reply' },
    ],
  };
}

const chat = (config: Record<string, unknown>) => oneNodeFlow({ action_ref: 'svc/llm-chat', config });

describe('profile secrets stay with their endpoint', () => {
  let platform: Standalone;
  let api: string;
  let admin: string;
  let mallory: string;
  let legit: Upstream;
  let evil: Upstream;
  let flowNo = 0;

  const profiles = (path: string, init: RequestInit & { bearer?: string } = {}) => call(`${api}/admin/profiles${path}`, { bearer: admin, ...init });
  const putProfile = (profileId: string, config: Record<string, unknown>) =>
    profiles('', { method: 'POST', ...json({ module: 'llm', kind: 'llm-chat', profileId, name: profileId, config }) });
  const newFlow = async (): Promise<string> => {
    const id = `secrets-${++flowNo}`;
    expect((await call(`${api}/flows`, { method: 'POST', bearer: mallory, ...json({ id, name: id }) })).status).toBe(201);
    return id;
  };
  const saveVersion = (flowId: string, doc: unknown) => call(`${api}/flows/${flowId}/versions`, { method: 'POST', bearer: mallory, ...json(doc) });
  const publish = (flowId: string, versionId: string) => call(`${api}/flows/${flowId}/publish`, { method: 'POST', bearer: mallory, ...json({ versionID: versionId }) });
  const run = (flowId: string) => call(`${api}/flows/${flowId}/runs`, { method: 'POST', bearer: mallory, ...json({ input: { prompt: 'hello' } }) });
  const keysSeenBy = (u: Upstream) => u.calls.map((c) => c.authorization ?? '');

  beforeAll(async () => {
    [legit, evil] = await Promise.all([upstream(), upstream()]);
    // Loopback is allowed so that, without the rule, the key would really reach the "attacker".
    platform = await startStandalone({ env: testEnv({ LLM_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' }) });
    api = `${platform.url}/api/v1`;
    admin = await token('admin', ['admin:access', 'profiles:*']);
    mallory = await token('mallory', ['admin:access']);
    expect((await putProfile('vault', { providerID: 'openai-compatible', apiKey: KEY, baseURL: legit.url, model: 'vault-model' })).status).toBe(201);
  });
  afterAll(async () => {
    await platform?.close();
    await Promise.all([legit?.close(), evil?.close()]);
  });

  afterEach(() => {
    // Whatever a test did, the attacker's host never saw a key.
    expect(keysSeenBy(evil).filter((a) => a.includes(KEY) || a.includes(LATER_KEY))).toEqual([]);
  });

  it('the attacker may edit flows but not read profiles', async () => {
    expect((await call(`${api}/admin/profiles/llm/llm-chat/vault`, { bearer: mallory })).status).toBe(403);
  });

  it('refuses an llm-chat node that overrides baseURL or providerID of a key-holding profile at version save (400, node and field named)', async () => {
    const flowId = await newFlow();
    const res = await saveVersion(flowId, chat({ profile: 'vault', baseURL: evil.url }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      statusCode: 400,
      code: 'PROFILE_ENDPOINT_OVERRIDE',
      message: expect.stringContaining('node "chat" config.baseURL: profile llm/llm-chat/vault holds a secret (apiKey)'),
      details: [{ field: '/nodes/1/config/baseURL', code: 'PROFILE_ENDPOINT_OVERRIDE', problems: [expect.stringContaining('baseURL may not be overridden')] }],
    });
    expect(res.text).not.toContain(KEY);
    const provider = await saveVersion(flowId, chat({ profile: 'vault', providerID: 'openai', baseURL: evil.url }));
    expect(provider.status).toBe(400);
    expect(provider.body.details.map((d: any) => d.field)).toEqual(['/nodes/1/config/providerID', '/nodes/1/config/baseURL']);
    expect((await call(`${api}/flows/${flowId}/versions`, { bearer: mallory })).body).toEqual([]);
  });

  it('refuses a classifier guard that overrides the provider of a key-holding profile', async () => {
    const flowId = await newFlow();
    const res = await saveVersion(flowId, oneNodeFlow({ action_ref: 'svc/guard', config: { guardID: 'llm-classifier', profile: 'vault', providerID: 'openai' } }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'PROFILE_ENDPOINT_OVERRIDE', details: [{ field: '/nodes/1/config/providerID' }] });
  });

  it('still lets the node override model, temperature and the rest; the key goes to the profile endpoint only', async () => {
    const flowId = await newFlow();
    const saved = await saveVersion(flowId, chat({ profile: 'vault', model: 'node-model', temperature: 0.3, maxTokens: 64, baseURL: '', providerID: '' }));
    expect(saved.status).toBe(201);
    expect((await publish(flowId, saved.body.versionId)).status).toBe(200);
    const before = legit.calls.length;
    const res = await run(flowId);
    expect(res.body).toMatchObject({ status: 'completed', output: { content: 'upstream reply', usage: { providerId: 'openai-compatible', profileId: 'vault' } } });
    expect(legit.calls.slice(before)).toEqual([{ authorization: `Bearer ${KEY}`, body: expect.objectContaining({ model: 'node-model', temperature: 0.3, max_tokens: 64 }) }]);
  });

  it('refuses at publish a version saved before its profile held a secret', async () => {
    expect((await putProfile('later', { providerID: 'openai-compatible', baseURL: legit.url, model: 'm' })).status).toBe(201);
    const flowId = await newFlow();
    const saved = await saveVersion(flowId, chat({ profile: 'later', baseURL: evil.url }));
    expect(saved.status).toBe(201);
    expect((await profiles('/llm/llm-chat/later', { method: 'PUT', ...json({ config: { apiKey: LATER_KEY } }) })).status).toBe(200);
    const res = await until(() => publish(flowId, saved.body.versionId), (r) => r.status === 400);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'PROFILE_ENDPOINT_OVERRIDE',
      message: expect.stringContaining('profile llm/llm-chat/later holds a secret'),
      details: [{ field: `${saved.body.versionId}.nodes.chat.config.baseURL`, code: 'PROFILE_ENDPOINT_OVERRIDE' }],
    });
    expect((await call(`${api}/flows/${flowId}`, { bearer: mallory })).body.published).toBeFalsy();
  });

  it('fails the run, without calling anyone, when a published version overrides the endpoint of a profile that gained a secret', async () => {
    expect((await putProfile('runtime', { providerID: 'openai-compatible', baseURL: legit.url, model: 'm' })).status).toBe(201);
    const flowId = await newFlow();
    const saved = await saveVersion(flowId, chat({ profile: 'runtime', baseURL: evil.url }));
    expect(saved.status).toBe(201);
    expect((await publish(flowId, saved.body.versionId)).status).toBe(200);
    // No secret yet: the override is allowed and the call goes out without a key.
    expect((await run(flowId)).body).toMatchObject({ status: 'completed' });
    expect(evil.calls.at(-1)?.authorization).toBeUndefined();
    const evilCalls = evil.calls.length;
    expect((await profiles('/llm/llm-chat/runtime', { method: 'PUT', ...json({ config: { apiKey: LATER_KEY } }) })).status).toBe(200);
    // The runtime's profile cache drops the entry on profiles.updated.
    const res = await until(() => run(flowId), (r) => r.body?.status === 'failed');
    expect(res.body).toMatchObject({
      status: 'failed',
      error: { code: 'PROFILE_ENDPOINT_OVERRIDE', nodeId: 'chat', message: expect.stringContaining('profile llm/llm-chat/runtime holds a secret (apiKey)') },
    });
    expect(res.text).not.toContain(LATER_KEY);
    expect(evil.calls.length).toBe(evilCalls);
  });

  describe('node configs never hold secrets', () => {
    it('refuses an apiKey in a node config at version save, pointing to profiles; other unknown keys are still dropped', async () => {
      const flowId = await newFlow();
      const res = await saveVersion(flowId, chat({ providerID: 'openai-compatible', baseURL: evil.url, apiKey: 'sk-inline' }));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'SECRET_IN_NODE_CONFIG',
        details: [
          {
            field: '/nodes/1/config/apiKey',
            code: 'SECRET_IN_NODE_CONFIG',
            problems: [expect.stringMatching(/apiKey is a secret and is never stored in a flow: put it in a profile of kind llm-chat \(PUT \/api\/v1\/admin\/profiles\/llm\/llm-chat\/\{id\}\) and select that profile in the node's "profile" setting/)],
          },
        ],
      });
      expect(res.text).not.toContain('sk-inline');
      const unknown = await saveVersion(flowId, chat({ providerID: 'local', colour: 'red', apiKey: '' }));
      expect(unknown.status).toBe(201);
      expect((await publish(flowId, unknown.body.versionId)).status).toBe(200);
      const ran = await call(`${api}/flows/${flowId}/runs`, { method: 'POST', bearer: mallory, headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ input: { prompt: 'hi' } }) });
      expect(ran.text).toContain('UNKNOWN_CONFIG_KEY');
      expect(ran.text).toContain('run.completed');
    });

    it('refuses credentials inside a baseURL in a node config at version save', async () => {
      const flowId = await newFlow();
      const res = await saveVersion(flowId, chat({ providerID: 'openai-compatible', baseURL: 'https://user:hunter2@llm.example.com/v1' }));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'CREDENTIALS_IN_URL', details: [{ field: '/nodes/1/config/baseURL', code: 'CREDENTIALS_IN_URL' }] });
      expect(res.text).not.toContain('hunter2');
    });
  });

  describe('profile writes', () => {
    /** The Authorization header a run of a flow selecting `profileId` sends to the profile's endpoint. */
    const keySentBy = async (profileId: string): Promise<string | undefined> => {
      const flowId = await newFlow();
      const saved = await saveVersion(flowId, chat({ profile: profileId }));
      expect((await publish(flowId, saved.body.versionId)).status).toBe(200);
      const before = legit.calls.length;
      const ran = await until(() => run(flowId), (r) => r.body?.status === 'completed');
      expect(ran.body).toMatchObject({ status: 'completed' });
      return legit.calls.slice(before).at(-1)?.authorization;
    };
    const stored = async (profileId: string) => (await profiles(`/llm/llm-chat/${profileId}`)).body;

    it('requires re-entering the secret to change baseURL or providerID', async () => {
      expect((await putProfile('moving', { providerID: 'openai-compatible', apiKey: KEY, baseURL: legit.url, model: 'm' })).status).toBe(201);
      for (const config of [{ baseURL: evil.url, apiKey: MASK_TOKEN }, { baseURL: evil.url }, { providerID: 'openai' }]) {
        const res = await profiles('/llm/llm-chat/moving', { method: 'PUT', ...json({ config }) });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'PROFILE_CONFIG_INVALID', details: [{ field: 'config.apiKey', problems: [expect.stringContaining('apiKey must be re-entered when')] }] });
      }
      // A whole-profile upsert with the mask and another endpoint, and a duplicate patching the endpoint, alike.
      expect((await putProfile('moving', { providerID: 'openai-compatible', apiKey: MASK_TOKEN, baseURL: evil.url, model: 'm' })).status).toBe(400);
      expect((await profiles('/llm/llm-chat/moving/duplicate', { method: 'POST', ...json({ configPatches: { baseURL: evil.url } }) })).status).toBe(400);
      expect(await stored('moving')).toMatchObject({ config: { baseURL: legit.url }, secretsSet: ['apiKey'] });
      expect(await keySentBy('moving')).toBe(`Bearer ${KEY}`);
      // Other edits keep the secret with the mask; a new secret or a cleared one may move the endpoint.
      expect((await profiles('/llm/llm-chat/moving', { method: 'PUT', ...json({ config: { model: 'x', apiKey: MASK_TOKEN } }) })).status).toBe(200);
      expect((await profiles('/llm/llm-chat/moving', { method: 'PUT', ...json({ config: { baseURL: evil.url, apiKey: 'sk-new' } }) })).status).toBe(200);
      expect(await stored('moving')).toMatchObject({ config: { baseURL: evil.url }, secretsSet: ['apiKey'] });
      const cleared = await profiles('/llm/llm-chat/moving', { method: 'PUT', ...json({ config: { baseURL: legit.url, apiKey: '' } }) });
      expect(cleared.status).toBe(200);
      expect(cleared.body.secretsSet).toEqual([]);
      expect(await keySentBy('moving')).toBeUndefined();
    });

    it('refuses credentials inside a baseURL and partial mask strings, storing nothing', async () => {
      const creds = await putProfile('creds', { providerID: 'openai-compatible', baseURL: 'https://user:hunter2@llm.example.com/v1' });
      expect(creds.status).toBe(400);
      expect(creds.body.details).toEqual([{ field: 'config.baseURL', problems: [expect.stringContaining('baseURL must not contain credentials')] }]);
      expect(creds.text).not.toContain('hunter2');
      expect((await profiles('/llm/llm-chat/creds')).status).toBe(404);
      expect((await putProfile('partial', { providerID: 'openai-compatible', baseURL: legit.url, apiKey: KEY, model: 'm' })).status).toBe(201);
      for (const apiKey of ['•••', '•'.repeat(7), `${MASK_TOKEN}•`, `sk-${'•'.repeat(4)}0001`]) {
        const res = await profiles('/llm/llm-chat/partial', { method: 'PUT', ...json({ config: { apiKey } }) });
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([{ field: 'config.apiKey', problems: [expect.stringContaining('is not the mask token')] }]);
      }
      expect((await putProfile('partial-new', { providerID: 'local', apiKey: '••••' })).status).toBe(400);
      expect(await keySentBy('partial')).toBe(`Bearer ${KEY}`);
    });
  });
});
