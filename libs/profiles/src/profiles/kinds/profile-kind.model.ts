import type { FieldType, OptionSource } from '@flowplane/contracts';

/** Where a `setting_ref` field inherits from. */
export interface SettingRef {
  module: string;
  key: string;
  /** As declared (`llm/default_model` or `llm.default_model`). */
  raw: string;
}

/** A kind field after `setting_ref` inheritance: every attribute settled. */
export interface ResolvedField {
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  /** Declared sensitive, inherited from a sensitive setting, or of type `secret`. */
  sensitive: boolean;
  overridable: boolean;
  /** Says where the secrets go (provider, base URL): changing it requires re-entering them. Set only when true. */
  endpoint?: boolean;
  description?: string;
  default?: unknown;
  env_var?: string;
  /** Inline (or inherited) allowed values; they win over `options_ref`. */
  options?: readonly string[];
  /** Live option source, consulted only when there are no inline options. */
  options_ref?: OptionSource;
  setting_ref?: SettingRef;
}

/** A registered kind with its fields resolved. */
export interface ResolvedKind {
  id: string;
  module: string;
  name: string;
  description?: string;
  icon?: string;
  fields: readonly ResolvedField[];
  /** Fields by key. */
  fieldMap: ReadonlyMap<string, ResolvedField>;
}

/** The live option source a field consults, if any (inline options win). */
export function liveSourceOf(field: ResolvedField): OptionSource | undefined {
  return field.options === undefined ? field.options_ref : undefined;
}
