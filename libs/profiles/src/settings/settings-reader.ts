/**
 * Reads the effective value of a module setting inside the profiles service (stored value, else the
 * env var, else the default). Implemented by the settings feature; the profiles feature uses it for
 * `setting_ref` fields when resolving provenance.
 *
 * Values are unmasked: mask sensitive ones before they leave the service. An unknown module or key
 * answers `{value: undefined, source: 'unset'}`. A localized field answers one text, chosen by the
 * chain `locale` (absent: the source language), its base, the source locale, any non-empty value.
 */
export abstract class SettingsReader {
  /** The effective value and where it came from; undefined value when nothing is set. */
  abstract effective(module: string, key: string, locale?: string): Promise<{ value: unknown; source: 'stored' | 'env' | 'default' | 'unset' }>;
}
