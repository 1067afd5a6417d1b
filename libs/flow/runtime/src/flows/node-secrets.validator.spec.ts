import { ProfileNotFoundError, ProfilesUnavailableError } from '@flowplane/contracts';
import { NodeRegistry } from '@flowplane/flow/engine';
import type { FlowDocument } from '@flowplane/flow/ir';
import { llmChatManifest } from '../llm/llm-nodes';
import { NodeSecretsValidator } from './node-secrets.validator';

const registry = new NodeRegistry()
  .define(llmChatManifest(1000, ['local', 'openai-compatible']), () => undefined)
  .define({ id: 'x/own-key', name: 'Own key', kind: 'action', settingsSchema: { type: 'object', properties: { apiKey: { type: 'string' } } }, inputs: [], outputs: [] }, () => undefined);

const doc = (action_ref: string, config: Record<string, unknown>): FlowDocument =>
  ({ name: 'd', nodes: [{ id: 'start', kind: 'start' }, { id: 'n', kind: 'action', action_ref, config }], edges: [] }) as unknown as FlowDocument;

describe('NodeSecretsValidator', () => {
  const withKey = { config: { providerID: 'openai-compatible', apiKey: 'sk-1', baseURL: 'https://api.example.com/v1' } };

  it('asks the profiles service only for a node that selects a profile and sets an endpoint field', async () => {
    const resolve = jest.fn(async () => withKey);
    const v = new NodeSecretsValidator(registry, { resolve } as never);
    expect(await v.check(doc('svc/llm-chat', { profile: 'p', model: 'm', temperature: 1 }))).toEqual([]);
    expect(await v.check(doc('svc/llm-chat', { profile: 'p', baseURL: '' }))).toEqual([]);
    expect(resolve).not.toHaveBeenCalled();
    expect(await v.check(doc('svc/llm-chat', { profile: 'p', baseURL: 'https://evil.example/v1' }))).toEqual([
      expect.objectContaining({ index: 1, nodeId: 'n', key: 'baseURL', code: 'PROFILE_ENDPOINT_OVERRIDE' }),
    ]);
    expect(resolve).toHaveBeenCalledWith('llm', 'llm-chat', 'p');
  });

  it('leaves a missing profile to the run, and lets an unreachable profiles service fail the save (503)', async () => {
    const missing = new NodeSecretsValidator(registry, { resolve: async () => Promise.reject(new ProfileNotFoundError('llm', 'llm-chat', 'p')) } as never);
    expect(await missing.check(doc('svc/llm-chat', { profile: 'p', baseURL: 'https://evil.example/v1' }))).toEqual([]);
    const down = new NodeSecretsValidator(registry, { resolve: async () => Promise.reject(new ProfilesUnavailableError('llm', 'llm-chat', 'p', new Error('down'))) } as never);
    await expect(down.check(doc('svc/llm-chat', { profile: 'p', baseURL: 'https://evil.example/v1' }))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  });

  it('refuses a sensitive key the node does not declare (also on unknown nodes), but not one it declares itself', async () => {
    const v = new NodeSecretsValidator(registry);
    expect((await v.check(doc('svc/llm-chat', { apiKey: 'sk-2' }))).map((p) => p.code)).toEqual(['SECRET_IN_NODE_CONFIG']);
    expect((await v.check(doc('x/unknown', { apiKey: 'sk-2' }))).map((p) => p.code)).toEqual(['SECRET_IN_NODE_CONFIG']);
    expect(await v.check(doc('x/own-key', { apiKey: 'sk-2' }))).toEqual([]);
    expect(await v.check(doc('svc/llm-chat', { apiKey: '  ' }))).toEqual([]);
  });

  it('refuses credentials in a baseURL, and only there', async () => {
    const v = new NodeSecretsValidator(registry);
    expect((await v.check(doc('svc/llm-chat', { baseURL: 'http://u:p@h/v1' }))).map((p) => p.code)).toEqual(['CREDENTIALS_IN_URL']);
    expect(await v.check(doc('svc/llm-chat', { baseURL: 'http://h/v1', systemPrompt: 'see http://u:p@h' }))).toEqual([]);
  });
});
