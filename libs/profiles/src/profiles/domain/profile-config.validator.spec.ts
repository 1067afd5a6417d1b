import { MASK_TOKEN } from '@flowplane/contracts';
import { KindRegistry } from '../kinds/kind.registry';
import type { LiveOptions } from '../kinds/live-options.client';
import { TEST_KIND, TEST_SETTINGS } from '../testing/profiles.fixtures';
import { applyConfigWrite } from './profile-config.validator';

const kind = new KindRegistry([TEST_KIND], TEST_SETTINGS).require('test', 'test-kind');
const base = { endpoint: 'https://api.example.com/v1' };

function write(
  incoming: Record<string, unknown>,
  options: {
    stored?: Record<string, unknown>;
    mode?: 'replace' | 'merge';
    live?: Map<string, LiveOptions>;
  } = {},
) {
  return applyConfigWrite({
    kind,
    stored: options.stored ?? {},
    incoming,
    mode: options.mode ?? 'replace',
    live: options.live,
  });
}

describe('applyConfigWrite: validation against the kind', () => {
  // [field, value, stored value or problem]
  const table: Array<[string, unknown, { ok: unknown } | { problem: string }]> = [
    ['endpoint', 'http://localhost:11434/v1', { ok: 'http://localhost:11434/v1' }],
    [
      'endpoint',
      'localhost:11434',
      { problem: 'endpoint must be an absolute URL (for example https://api.example.com/v1)' },
    ],
    [
      'endpoint',
      42,
      { problem: 'endpoint must be an absolute URL (for example https://api.example.com/v1)' },
    ],
    ['token', 'sk-1', { ok: 'sk-1' }],
    ['token', 1, { problem: 'token must be a string' }],
    ['enabled', false, { ok: false }],
    ['enabled', 'true', { problem: 'enabled must be true or false' }],
    ['limit', 0.5, { ok: 0.5 }],
    ['limit', ' 42 ', { ok: 42 }],
    ['limit', '-1.5e3', { ok: -1500 }],
    ['limit', '12abc', { problem: 'limit must be a number' }],
    ['limit', '0x10', { problem: 'limit must be a number' }],
    ['limit', true, { problem: 'limit must be a number' }],
    ['limit', Number.NaN, { problem: 'limit must be a number' }],
    ['mode', 'b', { ok: 'b' }],
    ['mode', 'c', { problem: 'mode must be one of: a, b' }],
    ['style', 'long', { ok: 'long' }],
    ['style', 'medium', { problem: 'style must be one of: short, long' }],
    ['retries', '3', { ok: 3 }],
    ['model', '42', { ok: '42' }],
    ['extra', { nested: [1, 2] }, { ok: { nested: [1, 2] } }],
    ['guard', 'inline-guard', { ok: 'inline-guard' }],
    ['guard', 'other', { problem: 'guard must be one of: inline-guard' }],
    ['nope', 'x', { problem: 'nope is not a field of kind test-kind' }],
  ];

  it.each(table)('%s = %j', (key, value, expected) => {
    const result = write({ ...base, [key]: value });
    if ('ok' in expected) {
      expect(result.problems).toEqual([]);
      expect(result.config[key]).toEqual(expected.ok);
    } else {
      expect(result.problems).toEqual([{ field: `config.${key}`, problems: [expected.problem] }]);
      expect(result.config).not.toHaveProperty(key);
    }
  });

  it('lists every failing field at once, a missing required field included', () => {
    const { problems } = write({ limit: 'many', mode: 'z', bogus: 1 });
    expect(problems).toEqual([
      { field: 'config.limit', problems: ['limit must be a number'] },
      { field: 'config.mode', problems: ['mode must be one of: a, b'] },
      { field: 'config.bogus', problems: ['bogus is not a field of kind test-kind'] },
      { field: 'config.endpoint', problems: ['endpoint is required'] },
    ]);
  });

  it('reports one problem for a required field with a bad value, and names problems under the given path', () => {
    const out = applyConfigWrite({
      kind,
      stored: {},
      incoming: { endpoint: 'nope' },
      mode: 'replace',
      path: 'configPatches',
    });
    expect(out.problems).toEqual([
      {
        field: 'configPatches.endpoint',
        problems: ['endpoint must be an absolute URL (for example https://api.example.com/v1)'],
      },
    ]);
  });

  it('checks live options when the source answered, and skips the check when it is unavailable', () => {
    const available = new Map<string, LiveOptions>([
      ['provider', { available: true, options: ['local', 'openai'] }],
    ]);
    expect(write({ ...base, provider: 'openai' }, { live: available }).problems).toEqual([]);
    expect(write({ ...base, provider: 'vertex' }, { live: available }).problems).toEqual([
      { field: 'config.provider', problems: ['provider must be one of: local, openai'] },
    ]);
    const down = new Map<string, LiveOptions>([
      ['provider', { available: false, reason: 'flow-runtime is unreachable' }],
    ]);
    expect(write({ ...base, provider: 'vertex' }, { live: down })).toEqual({
      config: { ...base, provider: 'vertex' },
      problems: [],
    });
    expect(write({ ...base, provider: 'vertex' }).problems).toEqual([]);
  });

  it('replace drops stored keys the write omits; merge keeps them', () => {
    const stored = { ...base, limit: 5, token: 'sk-old' };
    expect(write({ ...base, mode: 'a' }, { stored }).config).toEqual({ ...base, mode: 'a' });
    expect(write({ mode: 'a' }, { stored, mode: 'merge' }).config).toEqual({ ...stored, mode: 'a' });
  });

  it('keeps a stored secret when the mask token comes back, and clears a field on an empty string or null', () => {
    const stored = { ...base, token: 'sk-old', apiKey: 'key-old', limit: 5 };
    expect(write({ ...base, token: MASK_TOKEN, apiKey: MASK_TOKEN }, { stored }).config).toEqual({
      ...base,
      token: 'sk-old',
      apiKey: 'key-old',
    });
    expect(write({ token: '', apiKey: null, limit: '' }, { stored, mode: 'merge' }).config).toEqual({
      ...base,
    });
    // Nothing stored: the mask token means "no value", not a literal secret.
    expect(write({ ...base, token: MASK_TOKEN }).config).toEqual({ ...base });
    // On a field that is not sensitive the mask token is an ordinary value.
    expect(write({ ...base, model: MASK_TOKEN }, { stored: { model: 'x' } }).config.model).toBe(MASK_TOKEN);
  });

  it('refuses clearing a required field', () => {
    expect(write({ endpoint: '' }, { stored: base, mode: 'merge' }).problems).toEqual([
      { field: 'config.endpoint', problems: ['endpoint is required'] },
    ]);
  });

  it('accepts a missing required field that declares a default', () => {
    const withDefault = new KindRegistry(
      [{ id: 'd', module: 'm', name: 'D', fields: [{ key: 'region', required: true, default: 'eu' }] }],
      [],
    ).byId('d')!;
    expect(
      applyConfigWrite({ kind: withDefault, stored: {}, incoming: {}, mode: 'replace' }).problems,
    ).toEqual([]);
  });
});

describe('applyConfigWrite: secrets', () => {
  const llmLike = new KindRegistry(
    [
      {
        id: 'chat',
        module: 'm',
        name: 'Chat',
        fields: [
          { key: 'providerID', required: true, endpoint: true },
          { key: 'apiKey', sensitive: true },
          { key: 'baseURL', type: 'url', endpoint: true },
          { key: 'model' },
        ],
      },
    ],
    [],
  ).require('m', 'chat');
  const stored = { providerID: 'openai', apiKey: 'sk-stored', baseURL: 'https://api.example.com/v1', model: 'a' };
  const writeChat = (incoming: Record<string, unknown>, mode: 'replace' | 'merge' = 'merge') =>
    applyConfigWrite({ kind: llmLike, stored, incoming, mode });
  const reenter = (changed: string) => [
    {
      field: 'config.apiKey',
      problems: [
        `apiKey must be re-entered when ${changed} changes: the stored secret is only sent to the endpoint it was stored with; send the secret again, or an empty string to clear it`,
      ],
    },
  ];

  it.each([
    ['the mask token sent back', { baseURL: 'https://evil.example/v1', apiKey: MASK_TOKEN }, 'merge', 'baseURL'],
    ['the key left out of a patch', { baseURL: 'https://evil.example/v1' }, 'merge', 'baseURL'],
    ['a cleared base URL', { baseURL: '' }, 'merge', 'baseURL'],
    ['another provider', { providerID: 'ollama' }, 'merge', 'providerID'],
    ['a whole config with the mask', { ...stored, providerID: 'ollama', baseURL: 'https://evil.example/v1', apiKey: MASK_TOKEN }, 'replace', 'providerID or baseURL'],
  ] as const)('refuses an endpoint change that keeps the stored secret: %s', (_name, incoming, mode, changed) => {
    expect(writeChat({ ...incoming }, mode).problems).toEqual(reenter(changed));
  });

  it('accepts an endpoint change with the secret re-entered or cleared, and other changes with the mask', () => {
    expect(writeChat({ baseURL: 'https://other.example/v1', apiKey: 'sk-new' })).toEqual({
      config: { ...stored, baseURL: 'https://other.example/v1', apiKey: 'sk-new' },
      problems: [],
    });
    expect(writeChat({ baseURL: 'https://other.example/v1', apiKey: 'sk-stored' }).problems).toEqual([]);
    expect(writeChat({ providerID: 'ollama', apiKey: '' }).config).toEqual({ providerID: 'ollama', baseURL: stored.baseURL, model: 'a' });
    expect(writeChat({ model: 'b', apiKey: MASK_TOKEN }).problems).toEqual([]);
    expect(writeChat({ ...stored, apiKey: MASK_TOKEN }, 'replace').problems).toEqual([]);
    // A refused endpoint value is reported once, not again as a change.
    expect(writeChat({ baseURL: 'nope' }).problems.map((p) => p.field)).toEqual(['config.baseURL']);
    // Without a stored secret there is nothing to redirect.
    expect(applyConfigWrite({ kind: llmLike, stored: { providerID: 'openai' }, incoming: { baseURL: 'https://x.example/v1' }, mode: 'merge' }).problems).toEqual([]);
  });

  it.each(['•••', '•'.repeat(7), '•'.repeat(9), `${MASK_TOKEN}x`, 'sk-••••1234'])('refuses the partial mask %j on a sensitive field', (value) => {
    const out = writeChat({ apiKey: value });
    expect(out.problems).toEqual([
      {
        field: 'config.apiKey',
        problems: [
          'apiKey contains the mask character \u2022 but is not the mask token (exactly eight of them): send the mask token to keep the stored value, a new value to replace it, or an empty string to clear it',
        ],
      },
    ]);
    expect(out.config.apiKey).toBe('sk-stored');
  });

  it('keeps bullets in fields that are not sensitive', () => {
    expect(writeChat({ model: '• fast' }).config.model).toBe('• fast');
  });

  it.each(['https://user:pass@api.example.com/v1', 'https://user@api.example.com/v1', 'http://:secret@localhost:11434/v1'])(
    'refuses credentials inside a url field: %s',
    (baseURL) => {
      expect(applyConfigWrite({ kind: llmLike, stored: {}, incoming: { providerID: 'openai', baseURL }, mode: 'replace' }).problems).toEqual([
        { field: 'config.baseURL', problems: ['baseURL must not contain credentials (user:password@): put a key in a sensitive field of the profile instead'] },
      ]);
    },
  );
});
