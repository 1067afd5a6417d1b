import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';
import { FILL_NODE_SETTINGS_SCHEMA } from './fill-translations.settings';

/** The i18n flow nodes (localization.md, "Flow nodes"), registered with flow-runtime as remote nodes. */
export const I18N_TRANSLATE_NODE = 'i18n/translate';
export const I18N_RESOLVE_LOCALE_NODE = 'i18n/resolve-locale';
export const I18N_FILL_TRANSLATIONS_NODE = 'i18n/fill-translations';

/** Longest a fill step may run (flow-runtime's ceiling for a remote node); the fill loop answers a little earlier. */
export const FILL_NODE_TIMEOUT_MS = 600_000;

/** Route of each node on this service, relative to its base URL. */
export const I18N_NODE_PATHS: Record<string, string> = {
  [I18N_TRANSLATE_NODE]: '/internal/nodes/i18n/translate',
  [I18N_RESOLVE_LOCALE_NODE]: '/internal/nodes/i18n/resolve-locale',
  [I18N_FILL_TRANSLATIONS_NODE]: '/internal/nodes/i18n/fill-translations',
};

/** Both nodes are configured by the packet on their input edge: nothing to set on the node. */
const NO_SETTINGS = { $schema: SETTINGS_SCHEMA_DIALECT, type: 'object', properties: {} };

const locale = { type: 'string', description: 'A locale such as pl or pt-BR.' };

export const I18N_NODE_MANIFESTS = [
  {
    id: I18N_TRANSLATE_NODE,
    name: 'Translate',
    // The spec's "transform" is what the node does to state (nothing), not a canvas kind: the flow
    // document only knows `action` for a step that runs a handler (docs/adr/0051).
    kind: 'action',
    description:
      'Transform (no side effects): translates the packet\'s `key` (required) of namespace `ns` (default the empty one) into `locale` (default the run\'s `meta.locale`, else the default locale), filling `{{.Field}}` placeholders from `args` and expanding `[[ module.key ]]` settings tokens as plain text. Emits {value, locale, key} on `Translated`; a key without a translation is not an error and gives the key itself. A packet without `key` goes to `Error`.',
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
      'Transform (no side effects): the locale of the run, its `meta.locale`, else the packet\'s `locale` (a fallback only), else the configured default locale. Emits {locale} on `Resolved`.',
    settingsSchema: NO_SETTINGS,
    inputs: [{ port: 'in', schema: { type: 'object', properties: { locale } } }],
    outputs: [
      { port: 'Resolved', schema: { type: 'object', required: ['locale'], properties: { locale: { type: 'string' } } } },
      { port: 'Error' },
    ],
  },
  {
    id: I18N_FILL_TRANSLATIONS_NODE,
    name: 'Fill translations',
    kind: 'action',
    description:
      "Action (writes translations): machine-translates catalog keys into the active locales through the fill loop (translation memory first, then the model of `ai/profile`, format-checked, optionally reviewed), writing each locale with its provenance. Works on `keys`, else the triggering event's `payload.keys` (in `payload.ns`), else with `all_keys` the whole catalog; `mode` `missing` fills only absent text, `missing_and_stale` also re-translates machine text whose source or note changed. Never overwrites human, seed or unknown-origin text. Ends its branch (no outputs); the report (keys processed, locales filled, held, failed, remaining, memory hits, usage) is written to the run log.",
    settingsSchema: FILL_NODE_SETTINGS_SCHEMA,
    timeoutMs: FILL_NODE_TIMEOUT_MS,
    inputs: [
      {
        port: 'in',
        schema: { type: 'object', properties: { keys: { type: 'array', items: { type: 'string' } }, ns: { type: 'string' } } },
      },
    ],
    outputs: [],
  },
] as const;
