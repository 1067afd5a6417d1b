import fc from 'fast-check';
import { LLM_CHAT_KIND } from './llm-chat.kind';
import { isBlankValue, mergeProfile, mergeWithProvenance, overridableKeys } from './merge-profile';

describe('mergeProfile', () => {
  const profile = { providerID: 'openai', model: 'gpt-4o-mini', temperature: 0.2, apiKey: 'sk-secret' };

  it('puts the profile underneath and lets a key present in the node config win', () => {
    expect(mergeProfile(profile, { model: 'gpt-4o', maxTokens: 256 })).toEqual({
      providerID: 'openai',
      model: 'gpt-4o',
      temperature: 0.2,
      apiKey: 'sk-secret',
      maxTokens: 256,
    });
  });

  it('treats an undefined node value as absent', () => {
    expect(mergeProfile(profile, { model: undefined })).toEqual(profile);
  });

  it('lets a blank node value win on a field that is not overridable', () => {
    expect(mergeProfile(profile, { model: '', temperature: null })).toMatchObject({
      model: '',
      temperature: null,
    });
  });

  it('defers a blank node value to the profile on an overridable field', () => {
    const overridable = new Set(['model', 'temperature', 'systemPrompt']);
    expect(
      mergeProfile(profile, { model: '  ', temperature: null, systemPrompt: '' }, { overridable }),
    ).toEqual({
      ...profile,
      // The profile has no system prompt: the node's blank value stays.
      systemPrompt: '',
    });
    expect(mergeProfile(profile, { model: 'llama3' }, { overridable }).model).toBe('llama3');
  });

  it('keeps a node value of 0 or false even on an overridable field', () => {
    const overridable = new Set(['temperature', 'stream']);
    expect(
      mergeProfile({ temperature: 0.7, stream: true }, { temperature: 0, stream: false }, { overridable }),
    ).toEqual({ temperature: 0, stream: false });
  });

  it('never modifies its inputs and works without a profile or a node config', () => {
    const p = { a: 1 };
    const n = { b: 2 };
    const out = mergeProfile(p, n);
    out.a = 9;
    expect(p).toEqual({ a: 1 });
    expect(n).toEqual({ b: 2 });
    expect(mergeProfile(undefined, { b: 2 })).toEqual({ b: 2 });
    expect(mergeProfile({ a: 1 }, undefined)).toEqual({ a: 1 });
  });

  it('equals a spread of the defined node keys over the profile when nothing is overridable', () => {
    const record = fc.dictionary(
      fc.constantFrom('a', 'b', 'c', 'd'),
      fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined)),
    );
    fc.assert(
      fc.property(record, record, (p, n) => {
        const defined = Object.fromEntries(Object.entries(n).filter(([, v]) => v !== undefined));
        expect(mergeProfile(p, n)).toEqual({ ...p, ...defined });
      }),
    );
  });

  it('derives the overridable keys from a kind', () => {
    expect([...overridableKeys(LLM_CHAT_KIND)].sort()).toEqual([
      'examplesPolicy',
      'maxTokens',
      'model',
      'replyStyle',
      'systemPrompt',
      'temperature',
    ]);
  });

  it('calls null, undefined and whitespace blank, not 0 or false', () => {
    expect([null, undefined, '', ' \t'].every(isBlankValue)).toBe(true);
    expect([0, false, 'x', [], {}].some(isBlankValue)).toBe(false);
  });
});

describe('mergeWithProvenance', () => {
  it('reports node over profile over setting over default, field by field', () => {
    const out = mergeWithProvenance({
      defaults: { providerID: 'local', temperature: 0.5, replyStyle: 'normal' },
      settings: { providerID: 'ollama', model: 'llama3' },
      profile: { model: 'gpt-4o-mini', apiKey: 'sk-secret' },
      node: { temperature: 0.9 },
    });
    expect(out.values).toEqual({
      providerID: 'ollama',
      temperature: 0.9,
      replyStyle: 'normal',
      model: 'gpt-4o-mini',
      apiKey: 'sk-secret',
    });
    expect(out.sources).toEqual({
      providerID: 'setting',
      temperature: 'node',
      replyStyle: 'default',
      model: 'profile',
      apiKey: 'profile',
    });
  });

  it('lets a blank overridable node value fall through to the profile, the setting or the default', () => {
    const out = mergeWithProvenance({
      defaults: { replyStyle: 'normal' },
      settings: { providerID: 'ollama' },
      profile: { model: 'gpt-4o-mini' },
      node: { model: '', providerID: null, replyStyle: ' ', systemPrompt: '' },
      overridable: new Set(['model', 'providerID', 'replyStyle', 'systemPrompt']),
    });
    expect(out.sources).toEqual({
      model: 'profile',
      providerID: 'setting',
      replyStyle: 'default',
      systemPrompt: 'node',
    });
    expect(out.values).toEqual({
      model: 'gpt-4o-mini',
      providerID: 'ollama',
      replyStyle: 'normal',
      systemPrompt: '',
    });
  });

  it('ignores null profile values and undefined everywhere, and omits keys no layer sets', () => {
    const out = mergeWithProvenance({
      profile: { model: null, baseURL: undefined },
      settings: { x: undefined },
      defaults: {},
    });
    expect(out).toEqual({ values: {}, sources: {} });
  });

  it('agrees with mergeProfile on the node and profile layers', () => {
    const record = fc.dictionary(
      fc.constantFrom('a', 'b', 'c'),
      fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
    );
    const keys = fc.subarray(['a', 'b', 'c']);
    fc.assert(
      fc.property(record, record, keys, (p, n, o) => {
        const profile = Object.fromEntries(Object.entries(p).filter(([, v]) => v !== null));
        const overridable = new Set(o);
        expect(mergeWithProvenance({ profile, node: n, overridable }).values).toEqual(
          mergeProfile(profile, n, { overridable }),
        );
      }),
    );
  });
});
