import { DECLARED_PROFILE_KINDS, LLM_CHAT_KIND, type ProfileKindDeclaration } from '@flowplane/contracts';
import { ProfilesException } from '../profiles.exception';
import { TEST_KIND, TEST_SETTINGS } from '../testing/profiles.fixtures';
import { KindDeclarationError, KindRegistry, parseSettingRef } from './kind.registry';

const kindWith = (fields: ProfileKindDeclaration['fields'], id = 'k'): ProfileKindDeclaration => ({
  id,
  module: 'm',
  name: 'K',
  fields,
});

describe('KindRegistry', () => {
  const registry = new KindRegistry([TEST_KIND], TEST_SETTINGS);
  const field = (key: string) => registry.require('test', 'test-kind').fieldMap.get(key)!;

  it('registers every declared kind by default, including the bundled llm-chat', () => {
    const defaults = new KindRegistry();
    expect(defaults.all().map((k) => k.id)).toEqual(DECLARED_PROFILE_KINDS.map((k) => k.id));
    const llm = defaults.require('llm', 'llm-chat');
    expect(llm.fields.map((f) => f.key)).toEqual(LLM_CHAT_KIND.fields.map((f) => f.key));
    expect(llm.fieldMap.get('providerID')).toMatchObject({ required: true, options_ref: 'llm.providers' });
    expect(llm.fieldMap.get('apiKey')).toMatchObject({ sensitive: true });
    expect(llm.fieldMap.get('systemPrompt')).toMatchObject({ type: 'textarea', overridable: true });
  });

  it('inherits label, description, type, env_var and default through a <module>/<key> setting_ref', () => {
    expect(field('model')).toEqual({
      key: 'model',
      label: 'Default model',
      description: 'Model when a profile names none.',
      type: 'string',
      default: 'llama3',
      env_var: 'LLM_DEFAULT_MODEL',
      required: false,
      sensitive: false,
      overridable: true,
      setting_ref: { module: 'llm', key: 'default_model', raw: 'llm/default_model' },
    });
  });

  it('inherits the sensitive flag through a <module>.<key> setting_ref', () => {
    expect(field('apiKey')).toMatchObject({
      label: 'API key',
      sensitive: true,
      env_var: 'LLM_API_KEY',
      setting_ref: { module: 'llm', key: 'api_key' },
    });
  });

  it('lets inline keys win over the inherited ones and inherits the rest (options, type)', () => {
    expect(field('style')).toMatchObject({
      label: 'Reply style',
      default: 'long',
      options: ['short', 'long'],
      type: 'string',
    });
    expect(field('retries')).toMatchObject({ type: 'number', default: 2, label: 'Retries' });
  });

  it('fills plain fields: label from the key, type string, secret type implies sensitive', () => {
    expect(field('token')).toMatchObject({
      label: 'token',
      type: 'string',
      sensitive: true,
      required: false,
    });
    const secret = new KindRegistry([kindWith([{ key: 'pw', type: 'secret' }])], [])
      .byId('k')!
      .fieldMap.get('pw');
    expect(secret?.sensitive).toBe(true);
  });

  it('refuses a dangling setting_ref at boot, naming the kind, the field and what is declared', () => {
    const build = () =>
      new KindRegistry([kindWith([{ key: 'model', setting_ref: 'llm/no_such_key' }], 'chat')], TEST_SETTINGS);
    expect(build).toThrow(KindDeclarationError);
    expect(build).toThrow(
      /profile kind "chat" field "model": setting_ref "llm\/no_such_key" names no declared module setting; module "llm" declares no setting "no_such_key" \(declared: default_model, api_key, style, retries\)/,
    );
    expect(
      () => new KindRegistry([kindWith([{ key: 'x', setting_ref: 'nomodule.key' }])], TEST_SETTINGS),
    ).toThrow(/no module "nomodule" declares settings \(declared: llm\)/);
    expect(
      () => new KindRegistry([kindWith([{ key: 'x', setting_ref: 'justakey' }])], TEST_SETTINGS),
    ).toThrow(/expected "<module>\/<key>" or "<module>.<key>"/);
  });

  it('lists every broken declaration at once: duplicate kinds and fields, unknown types and option sources', () => {
    try {
      new KindRegistry(
        [
          kindWith([
            { key: 'a' },
            { key: 'a' },
            { key: 'b', type: 'date' as never },
            { key: 'c', options_ref: 'nope' as never },
          ]),
          kindWith([{ key: 'z' }]),
        ],
        [],
      );
      throw new Error('expected a KindDeclarationError');
    } catch (e) {
      expect(e).toBeInstanceOf(KindDeclarationError);
      expect((e as KindDeclarationError).problems).toEqual([
        'profile kind "k" field "a" is declared twice',
        'profile kind "k" field "b": unknown type "date" (one of string, number, boolean, textarea, secret, url, json)',
        'profile kind "k" field "c": unknown options_ref "nope" (one of llm.providers, guard.guards)',
        'profile kind "k" is declared twice (kind ids are global: nodes reference them by id alone)',
      ]);
    }
  });

  it('answers 404 for an unknown kind, or a kind asked under another module', () => {
    const notFound = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e instanceof ProfilesException ? { status: e.status, code: e.code, message: e.message } : e;
      }
      return undefined;
    };
    expect(notFound(() => registry.require('test', 'nope'))).toEqual({
      status: 404,
      code: 'PROFILE_KIND_NOT_FOUND',
      message: 'no profile kind "nope" in module "test"',
    });
    expect(notFound(() => registry.require('llm', 'test-kind'))).toMatchObject({ status: 404 });
    expect(notFound(() => registry.requireKind('nope'))).toMatchObject({
      status: 404,
      message: 'no profile kind "nope"',
    });
  });

  it('parses both setting_ref spellings, splitting at the first separator', () => {
    expect(parseSettingRef('llm/default_model')).toEqual({
      module: 'llm',
      key: 'default_model',
      raw: 'llm/default_model',
    });
    expect(parseSettingRef('llm.default_model')).toEqual({
      module: 'llm',
      key: 'default_model',
      raw: 'llm.default_model',
    });
    expect(parseSettingRef('site/a.b')).toMatchObject({ module: 'site', key: 'a.b' });
    expect(parseSettingRef('llm/')).toBeUndefined();
    expect(parseSettingRef('/key')).toBeUndefined();
  });
});
