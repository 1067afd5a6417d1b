import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';

/** The i18n flow nodes (localization.md, "Flow nodes"), registered with flow-runtime as remote nodes. */
export const I18N_TRANSLATE_NODE = 'i18n/translate';
export const I18N_RESOLVE_LOCALE_NODE = 'i18n/resolve-locale';

/** Route of each node on this service, relative to its base URL. */
export const I18N_NODE_PATHS: Record<string, string> = {
  [I18N_TRANSLATE_NODE]: '/internal/nodes/i18n/translate',
  [I18N_RESOLVE_LOCALE_NODE]: '/internal/nodes/i18n/resolve-locale',
};

/** Both nodes are configured by the packet on their input edge: nothing to set on the node. */
const NO_SETTINGS = { $schema: SETTINGS_SCHEMA_DIALECT, type: 'object', properties: {} };

const locale = { type: 'string', description: 'A locale such as pl or pt-BR.' };

export const I18N_NODE_MANIFESTS = [
  {
    id: I18N_TRANSLATE_NODE,
    name: 'Translate',
    // The spec's "transform": our IR has no such kind; the node calls the i18n service.
    kind: 'action',
    description:
      'Translates the packet\'s `key` (required) of namespace `ns` (default the empty one) into `locale` (default the run\'s `meta.locale`, else the default locale), filling `{{.Field}}` placeholders from `args` and expanding `[[ module.key ]]` settings tokens as plain text. Emits {value, locale, key} on `Translated`; a key without a translation is not an error and gives the key itself. A packet without `key` goes to `Error`.',
    settingsSchema: NO_SETTINGS,
    inputs: [
      {
        port: 'in',
        schema: {
          type: 'object',
          properties: { key: { type: 'string' }, ns: { type: 'string' }, locale, args: { type: 'object' } },
        },
      },
    ],
    outputs: [
      {
        port: 'Translated',
        schema: {
          type: 'object',
          required: ['value', 'locale', 'key'],
          properties: { value: { type: 'string' }, locale: { type: 'string' }, key: { type: 'string' } },
        },
      },
      { port: 'Error' },
    ],
  },
  {
    id: I18N_RESOLVE_LOCALE_NODE,
    name: 'Resolve locale',
    kind: 'action',
    description:
      'The locale of the run: its `meta.locale`, else the packet\'s `locale` (a fallback only), else the configured default locale. Emits {locale} on `Resolved`.',
    settingsSchema: NO_SETTINGS,
    inputs: [{ port: 'in', schema: { type: 'object', properties: { locale } } }],
    outputs: [
      { port: 'Resolved', schema: { type: 'object', required: ['locale'], properties: { locale: { type: 'string' } } } },
      { port: 'Error' },
    ],
  },
] as const;
