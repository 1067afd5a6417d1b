import { copyId, type FieldDef, fromFormState, holdsAny, localePatch, localeRows, MASK, secretsToReenter, toFormState } from './profiles-form';

const fields: FieldDef[] = [
  { key: 'providerID', label: 'Provider', type: 'string', required: true, endpoint: true, options: ['openai', 'ollama'] },
  { key: 'baseURL', label: 'Base URL', type: 'url', endpoint: true },
  { key: 'apiKey', label: 'API key', type: 'secret', sensitive: true },
  { key: 'temperature', label: 'Temperature', type: 'number' },
  { key: 'stream', label: 'Stream', type: 'boolean' },
  { key: 'extra', label: 'Extra', type: 'json' },
];

describe('profiles form', () => {
  it('keeps a masked secret as the mask, and sends blanks as clears only on update', () => {
    const state = toFormState(fields, { providerID: 'openai', apiKey: MASK, temperature: 0.2, stream: true, extra: { a: 1 } });
    expect(state).toEqual({ providerID: 'openai', baseURL: '', apiKey: MASK, temperature: '0.2', stream: true, extra: '{\n  "a": 1\n}' });
    expect(fromFormState(fields, state, { creating: false })).toEqual({ values: { providerID: 'openai', baseURL: '', apiKey: MASK, temperature: 0.2, stream: true, extra: { a: 1 } }, problems: {} });
    expect(fromFormState(fields, { ...state, baseURL: '', apiKey: 'sk-1' }, { creating: true }).values).toEqual({ providerID: 'openai', apiKey: 'sk-1', temperature: 0.2, stream: true, extra: { a: 1 } });
  });

  it('finds problems before sending: required, options, numbers, JSON, URLs, part of the mask', () => {
    const { problems } = fromFormState(fields, { providerID: 'azure', baseURL: 'ftp://x', apiKey: '\u2022\u2022\u2022', temperature: 'hot', stream: false, extra: '{' }, { creating: true });
    expect(Object.keys(problems).sort()).toEqual(['apiKey', 'baseURL', 'extra', 'providerID', 'temperature']);
    expect(fromFormState(fields, { providerID: '', stream: false }, { creating: true }).problems).toEqual({ providerID: 'This field is required.' });
  });

  it('asks for the secret again when an endpoint field changes while the secret is kept', () => {
    const stored = toFormState(fields, { providerID: 'openai', apiKey: MASK });
    expect(secretsToReenter(fields, stored, { ...stored, temperature: '1' })).toEqual([]);
    expect(secretsToReenter(fields, stored, { ...stored, baseURL: 'https://evil.example' })).toEqual(['apiKey']);
    expect(secretsToReenter(fields, stored, { ...stored, baseURL: 'https://evil.example', apiKey: 'sk-new' })).toEqual([]);
  });

  it('edits a localized setting per locale: a cleared override is sent as "" so the default applies', () => {
    const before = localeRows({ en: 'Acme', pl: 'Akme' }, { en: 'default', pl: 'stored' }, ['en', 'pl', 'de'], 'en');
    expect(before).toEqual([
      { locale: 'en', text: 'Acme', source: 'default' },
      { locale: 'pl', text: 'Akme', source: 'stored' },
      { locale: 'de', text: '', source: 'missing' },
    ]);
    const after = before.map((r) => (r.locale === 'pl' ? { ...r, text: 'Acme', source: 'default' as const } : r.locale === 'de' ? { ...r, text: 'Akme GmbH', source: 'stored' as const } : r));
    expect(localePatch(before, after)).toEqual({ pl: '', de: 'Akme GmbH' });
    expect(localePatch(before, before)).toBeUndefined();
  });

  it('names a free copy id and reads the profiles permissions', () => {
    expect(copyId('ollama', ['ollama', 'ollama-copy'])).toBe('ollama-copy-2');
    expect(holdsAny({ perms: ['admin:access', 'profiles:read'], superuser: false, active: true }, ['profiles:write', 'profiles:*'])).toBe(false);
    expect(holdsAny({ perms: [], superuser: true, active: true }, ['profiles:write'])).toBe(true);
  });
});
