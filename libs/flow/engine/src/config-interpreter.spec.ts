import { ProfileNotFoundError, type ResolvedProfile } from '@flowplane/contracts';
import type { FlowDocument } from '@flowplane/flow/ir';
import { compileFlow } from './compile-flow';
import { interpretConfig, interpretValue, profileSelectors } from './config-interpreter';
import { FlowEngine, type ProfileResolverLike } from './flow-engine';
import type { NodeManifest, SettingsSchema } from './node-manifest';
import { NodeRegistry } from './node-registry';
import type { RunEvent } from './run-events';

const schema: SettingsSchema = {
  type: 'object',
  properties: {
    topK: { type: 'integer' },
    temperature: { type: 'number' },
    stream: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    limits: { type: 'array', items: { type: 'number' } },
    name: { type: 'string' },
    options: { type: 'object', properties: { retries: { type: 'integer' } } },
    free: {},
  },
};

describe('interpretConfig', () => {
  it('reads stored values by kind: numbers, booleans, arrays and nested objects', () => {
    const { config, warnings } = interpretConfig(schema, {
      topK: '5',
      temperature: { $numberDouble: '0.25' },
      stream: 'true',
      tags: { 0: 'a', 1: 'b' },
      limits: ['1', { $numberInt: '2' }, 3n],
      name: 'bot',
      options: { retries: { $numberLong: '3' }, extra: 'kept' },
      free: { $numberInt: '7' },
    });
    expect(config).toEqual({
      topK: 5,
      temperature: 0.25,
      stream: true,
      tags: ['a', 'b'],
      limits: [1, 2, 3],
      name: 'bot',
      options: { retries: 3, extra: 'kept' },
      free: 7,
    });
    expect(warnings).toEqual([]);
  });

  it('accepts JSON array strings and array-likes with length; keeps blank strings', () => {
    expect(interpretConfig(schema, { tags: '["x","y"]', temperature: '  ' }).config).toEqual({ tags: ['x', 'y'], temperature: '  ' });
    expect(interpretValue({ type: 'array' }, { 0: 1, 1: 2, length: 2 })).toEqual([1, 2]);
    expect(interpretValue({ type: 'array' }, new Set(['q']))).toEqual(['q']);
    expect(interpretValue({ type: ['null', 'number'] }, '4.5')).toBe(4.5);
  });

  it('drops keys unknown to the schema with a warning, and warns on values it cannot convert', () => {
    const { config, warnings } = interpretConfig(schema, { topK: 'many', bogus: 1, name: 'n' });
    expect(config).toEqual({ topK: 'many', name: 'n' });
    expect(warnings).toEqual([
      { code: 'CONFIG_TYPE_MISMATCH', key: 'topK', message: expect.stringContaining('should be integer, got string') },
      { code: 'UNKNOWN_CONFIG_KEY', key: 'bogus', message: expect.stringContaining('dropped') },
    ]);
  });

  it('keeps every key without a schema, or when additionalProperties allows it', () => {
    expect(interpretConfig(undefined, { a: '1', b: { $numberInt: '2' } }).config).toEqual({ a: '1', b: 2 });
    expect(interpretConfig({ type: 'object', properties: { a: { type: 'number' } }, additionalProperties: true }, { a: '1', z: 'x' }).config).toEqual({ a: 1, z: 'x' });
  });

  it('finds profile selectors in form order and their owner module', () => {
    const s: SettingsSchema = {
      type: 'object',
      'x-ui': { order: ['second', 'first'] },
      properties: {
        first: { type: 'string', 'x-profile-kind': 'llm-chat', 'x-overrides': ['model'] },
        second: { type: 'string', 'x-profile-kind': 'guard/llm-guard' },
        plain: { type: 'string' },
      },
    };
    expect(profileSelectors(s)).toEqual([
      { key: 'second', module: 'guard', kind: 'llm-guard', overrides: [] },
      { key: 'first', module: 'llm', kind: 'llm-chat', overrides: ['model'] },
    ]);
  });
});

const chatManifest: NodeManifest = {
  id: 't/chat',
  name: 'Chat',
  kind: 'action',
  inputs: [{ port: 'in' }],
  outputs: [{ port: 'out' }, { port: 'Error' }],
  settingsSchema: {
    type: 'object',
    properties: {
      profile: { type: 'string', 'x-profile-kind': 'llm-chat', 'x-overrides': ['model', 'temperature', 'systemPrompt'] },
      model: { type: 'string', 'x-profile-overridable': true },
      temperature: { type: 'number', 'x-profile-overridable': true },
      systemPrompt: { type: 'string', 'x-profile-overridable': true },
      baseURL: { type: 'string', format: 'uri', 'x-profile-overridable': true },
      maxTokens: { type: 'integer', default: 256 },
      stream: { type: 'boolean', default: false },
    },
  },
};

function chatFlow(config: Record<string, unknown>): FlowDocument {
  return {
    nodes: [
      { id: 'start', kind: 'start' },
      { id: 'chat', kind: 'action', action_ref: 't/chat', config },
      { id: 'end', kind: 'end' },
      { id: 'failed', kind: 'end' },
    ],
    edges: [
      { id: 'a', from: 'start', to: 'chat' },
      { id: 'b', from: 'chat', to: 'end', port: 'out' },
      { id: 'c', from: 'chat', to: 'failed', port: 'Error' },
    ],
  };
}

const PROFILE: ResolvedProfile = {
  module: 'llm',
  kind: 'llm-chat',
  profileId: 'support',
  name: 'Support',
  config: { providerID: 'local', apiKey: 'secret', model: 'gpt-x', temperature: 0.2, systemPrompt: 'Be kind.' },
  updatedAt: '2024-01-01T00:00:00.000Z',
};

describe('FlowEngine config and profiles', () => {
  function run(config: Record<string, unknown>, profiles?: ProfileResolverLike) {
    const registry = new NodeRegistry().define(chatManifest, (ctx) => ({ port: 'out', packet: { ...ctx.config } }));
    const events: RunEvent[] = [];
    const engine = new FlowEngine({ profiles, onEvent: (e) => events.push(e) });
    const flow = compileFlow(chatFlow(config), registry);
    return { flow, events, done: engine.start(flow, {}).done };
  }

  it('gives the handler the interpreted config with defaults, and warns in the timeline about dropped keys', async () => {
    const { flow, events, done } = run({ maxTokens: '512', stream: 'true', legacyKey: 'x' });
    expect((await done).output).toEqual({ maxTokens: 512, stream: true });
    expect(flow.warnings).toEqual([expect.objectContaining({ code: 'UNKNOWN_CONFIG_KEY', nodeId: 'chat', key: 'legacyKey' })]);
    const warning = events.find((e) => e.type === 'node.warning');
    expect(warning?.data).toMatchObject({ nodeId: 'chat', code: 'UNKNOWN_CONFIG_KEY', key: 'legacyKey' });
  });

  it('resolves the x-profile-kind selector and merges the profile under the node config', async () => {
    const calls: string[] = [];
    const resolver: ProfileResolverLike = {
      resolve: async (module, kind, id) => {
        calls.push(`${module}/${kind}/${id}`);
        return PROFILE;
      },
    };
    // A node value wins; a blank overridable value defers to the profile; defaults fill the rest.
    const { done } = run({ profile: 'support', temperature: '0.9', model: '  ' }, resolver);
    expect((await done).output).toEqual({
      profile: 'support',
      providerID: 'local',
      apiKey: 'secret',
      model: 'gpt-x',
      temperature: 0.9,
      systemPrompt: 'Be kind.',
      maxTokens: 256,
      stream: false,
    });
    expect(calls).toEqual(['llm/llm-chat/support']);
  });

  it('uses resolveCached when the resolver has one', async () => {
    const resolver: ProfileResolverLike = {
      resolve: () => Promise.reject(new Error('should not be called')),
      resolveCached: () => PROFILE,
    };
    expect((await run({ profile: 'support' }, resolver).done).output).toMatchObject({ model: 'gpt-x' });
  });

  it('routes a missing profile to the Error port like any handler error', async () => {
    const resolver: ProfileResolverLike = { resolve: (m, k, id) => Promise.reject(new ProfileNotFoundError(m, k, id)) };
    const result = await run({ profile: 'gone' }, resolver).done;
    expect(result).toMatchObject({ status: 'completed', endNodeId: 'failed', output: { error: 'profile not found: llm/llm-chat/gone' } });
  });

  it('fails the run with INVALID_NODE_CONFIG naming the node and field when a merged profile value breaks the settings schema', async () => {
    const resolver: ProfileResolverLike = { resolve: async () => ({ ...PROFILE, config: { ...PROFILE.config, temperature: 'hot', baseURL: 'not a url' } }) };
    const { events, done } = run({ profile: 'support' }, resolver);
    const result = await done;
    // Not routed to the Error port: the flow cannot handle a configuration it was never given.
    expect(result).toMatchObject({ status: 'failed', error: { code: 'INVALID_NODE_CONFIG', nodeId: 'chat', field: '/temperature' } });
    expect(result.error?.message).toBe('node "chat" (t/chat): config /temperature must be number; config /baseURL must match format "uri" (with profile llm/llm-chat/support merged)');
    expect(events.find((e) => e.type === 'node.failed')?.data).toMatchObject({ nodeId: 'chat', error: { code: 'INVALID_NODE_CONFIG' } });
    // A profile whose values fit runs as before.
    expect((await run({ profile: 'support' }, { resolve: async () => PROFILE }).done).status).toBe('completed');
  });

  it('runs without a resolver, leaving the selector unmerged with a warning', async () => {
    const { events, done } = run({ profile: 'support' });
    expect((await done).output).toEqual({ profile: 'support', maxTokens: 256, stream: false });
    expect(events.some((e) => e.type === 'node.warning' && e.data.code === 'NO_PROFILE_RESOLVER')).toBe(true);
  });
});
