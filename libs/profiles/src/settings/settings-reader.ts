/**
 * Reads the effective value of a module setting inside the profiles service (stored value, else the
 * env var, else the default). Implemented by the settings feature; the profiles feature uses it for
 * `setting_ref` fields when resolving provenance.
 */
export abstract class SettingsReader {
  /** The effective value and where it came from; undefined value when nothing is set. */
  abstract effective(module: string, key: string): Promise<{ value: unknown; source: 'stored' | 'env' | 'default' | 'unset' }>;
}
