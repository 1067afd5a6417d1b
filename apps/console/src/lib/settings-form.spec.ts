import { configToFormData, formDataToConfig, propertyOrder, settingsToForm, withoutHints } from './settings-form';

// Shaped like svc/llm-chat's settings schema as GET /flows/nodes lists it (enum filled by the registry).
const llm = {
  type: 'object',
  'x-ui': { order: ['prompt', 'profile'] },
  required: ['profile', 'model'],
  properties: {
    model: { type: 'string', 'x-profile-overridable': true },
    temperature: { type: 'number', minimum: 0, maximum: 2, 'x-profile-overridable': true },
    profile: { type: 'string', 'x-profile-kind': 'llm-chat', 'x-overrides': ['model', 'temperature'], enum: ['ollama', 'openai'] },
    prompt: { type: 'string', title: 'System prompt', maxLength: 4000 },
    first: { type: 'boolean', 'x-order': -1 },
  },
};

describe('settings schema → form', () => {
  it('orders by x-order, then x-ui.order, then declaration', () => {
    expect(propertyOrder(llm)).toEqual(['first', 'prompt', 'profile', 'model', 'temperature']);
    expect(settingsToForm(llm).uiSchema['ui:order']).toEqual(['first', 'prompt', 'profile', 'model', 'temperature', '*']);
  });

  it('turns a profile selector into a select of the live profile ids, naming what the profile supplies', () => {
    const form = settingsToForm(llm);
    expect((form.schema.properties as any).profile).toEqual({ type: 'string', enum: ['ollama', 'openai'], title: 'Profile' });
    expect(form.selectors).toEqual([{ key: 'profile', kind: 'llm-chat', options: ['ollama', 'openai'] }]);
    expect((form.uiSchema.profile as any)['ui:help']).toBe('A profile of kind llm-chat. The profile supplies defaults for: model, temperature.');
  });

  it('falls back to a text field when profiles could not be listed', () => {
    const form = settingsToForm({ properties: { profile: { type: 'string', 'x-profile-kind': 'llm-chat', 'x-options-unavailable': true } } });
    expect((form.schema.properties as any).profile.enum).toBeUndefined();
    expect(form.selectors[0].options).toBeUndefined();
    expect((form.uiSchema.profile as any)['ui:help']).toMatch(/could not be listed/);
  });

  it('says when no profile of the kind exists yet', () => {
    const form = settingsToForm({ properties: { profile: { type: 'string', 'x-profile-kind': 'mail/smtp' } } });
    expect((form.uiSchema.profile as any)['ui:help']).toBe('No profile of kind mail/smtp exists yet.');
  });

  it('marks overridable fields, lifts their requiredness and drops their blank values', () => {
    const form = settingsToForm(llm);
    expect(form.overridable).toEqual(['model', 'temperature']);
    expect(form.schema.required).toEqual(['profile']);
    expect((form.uiSchema.model as any)['ui:help']).toMatch(/blank/);
    expect(formDataToConfig({ profile: 'ollama', model: '', temperature: null, prompt: '', extra: undefined }, form)).toEqual({ profile: 'ollama', prompt: '' });
  });

  it('strips x-* hints at every level, keeps titles, fills missing ones and picks a textarea for long text', () => {
    const form = settingsToForm(llm);
    expect(JSON.stringify(form.schema)).not.toMatch(/"x-/);
    expect((form.schema.properties as any).prompt.title).toBe('System prompt');
    expect((form.schema.properties as any).temperature.title).toBe('Temperature');
    expect((form.uiSchema.prompt as any)['ui:widget']).toBe('textarea');
    expect(withoutHints({ a: [{ 'x-b': 1, c: 2 }] })).toEqual({ a: [{ c: 2 }] });
    expect(withoutHints({ properties: { 'x-id': { type: 'string', 'x-order': 1 } } })).toEqual({ properties: { 'x-id': { type: 'string' } } });
  });

  it('translates its help through the given $t', () => {
    const form = settingsToForm(llm, (key, _d, p) => `${key}${p ? JSON.stringify(p) : ''}`);
    expect((form.uiSchema.model as any)['ui:help']).toBe('settings.overridable');
  });

  it('copies config into form data', () => {
    const config = { a: { b: 1 } };
    const data = configToFormData(config);
    (data.a as any).b = 2;
    expect(config.a.b).toBe(1);
    expect(configToFormData(undefined)).toEqual({});
  });

  it('handles a node without settings schema', () => {
    expect(settingsToForm(undefined)).toMatchObject({ schema: { type: 'object', properties: {} }, order: [], overridable: [] });
  });
});
