import { LLM_CHAT_KIND } from './llm-chat.kind';
import { mergeProfile } from './merge-profile';
import {
  assertSecretEndpointKept,
  declaredSecretEndpointFields,
  declaredSensitiveProfileKeys,
  endpointOverrides,
  ProfileEndpointOverrideError,
  secretEndpointFieldsOf,
} from './secret-endpoint';

const ref = { module: 'llm', kind: 'llm-chat', profileId: 'prod' };
const withKey = { providerID: 'openai', apiKey: 'sk-secret', baseURL: 'https://api.openai.com/v1', model: 'gpt-4o-mini' };
const withoutKey = { providerID: 'ollama', baseURL: 'http://localhost:11434/v1', model: 'llama3' };
const overridable = new Set(['providerID', 'baseURL', 'model', 'temperature']);

describe('secret endpoint rule', () => {
  it('reads the sensitive and endpoint fields of llm-chat', () => {
    expect(declaredSecretEndpointFields('llm', 'llm-chat')).toEqual({ sensitive: ['apiKey'], endpoint: ['providerID', 'baseURL'] });
    expect(secretEndpointFieldsOf(LLM_CHAT_KIND)).toEqual(declaredSecretEndpointFields('llm', 'llm-chat'));
    expect(declaredSecretEndpointFields('llm', 'nope')).toBeUndefined();
    expect([...declaredSensitiveProfileKeys().keys()]).toEqual(['apiKey']);
  });

  it('inherits sensitive from a setting_ref and from the secret type', () => {
    const fields = secretEndpointFieldsOf(
      { fields: [{ key: 'a', setting_ref: 'm/key' }, { key: 'b', type: 'secret' }, { key: 'c' }, { key: 'url', endpoint: true }] },
      [{ module: 'm', fields: [{ key: 'key', type: 'string', label: 'Key', sensitive: true }] }],
    );
    expect(fields).toEqual({ sensitive: ['a', 'b'], endpoint: ['url'] });
  });

  it('refuses a node endpoint value over a secret-holding profile, in the merge every consumer uses', () => {
    for (const node of [{ baseURL: 'https://evil.example/v1' }, { providerID: 'openai-compatible' }, { baseURL: 'https://api.openai.com/v1' }]) {
      expect(() => mergeProfile(withKey, node, { overridable, profileRef: ref })).toThrow(ProfileEndpointOverrideError);
    }
    let error: ProfileEndpointOverrideError | undefined;
    try {
      mergeProfile(withKey, { baseURL: 'https://evil.example/v1', providerID: 'openai-compatible' }, { overridable, profileRef: ref });
    } catch (e) {
      error = e as ProfileEndpointOverrideError;
    }
    expect(error).toMatchObject({
      code: 'PROFILE_ENDPOINT_OVERRIDE',
      status: 400,
      keys: ['providerID', 'baseURL'],
      message:
        'profile llm/llm-chat/prod holds a secret (apiKey) that is only sent to the endpoint stored with the profile, so providerID and baseURL may not be overridden: leave them blank, or select a profile without a secret',
    });
    expect(error!.message).not.toContain('sk-secret');
  });

  it('lets the node override everything else, defer blank endpoint values, and override endpoints of a profile without a secret', () => {
    expect(mergeProfile(withKey, { model: 'gpt-4o', temperature: 0, baseURL: '', providerID: null }, { overridable, profileRef: ref })).toEqual({
      ...withKey,
      model: 'gpt-4o',
      temperature: 0,
    });
    expect(mergeProfile(withoutKey, { baseURL: 'http://gpu:8000/v1' }, { overridable, profileRef: ref }).baseURL).toBe('http://gpu:8000/v1');
    expect(mergeProfile({ ...withKey, apiKey: '  ' }, { baseURL: 'http://gpu:8000/v1' }, { overridable, profileRef: ref }).baseURL).toBe('http://gpu:8000/v1');
  });

  it('counts a blank value as an override where it is not overridable (it would win)', () => {
    expect(endpointOverrides(declaredSecretEndpointFields('llm', 'llm-chat')!, withKey, { baseURL: '' })).toEqual(['baseURL']);
  });

  it('with module precedence refuses only a flat endpoint the profile leaves blank', () => {
    const flat = { providerID: 'local', baseURL: 'https://flat.example/v1' };
    expect(() => assertSecretEndpointKept(ref, withKey, flat, { precedence: 'module' })).not.toThrow();
    expect(() => assertSecretEndpointKept(ref, { providerID: 'openai', apiKey: 'sk' }, flat, { precedence: 'module' })).toThrow(/baseURL may not be overridden/);
    expect(() => assertSecretEndpointKept(ref, { providerID: 'openai' }, flat, { precedence: 'module' })).not.toThrow();
  });
});
