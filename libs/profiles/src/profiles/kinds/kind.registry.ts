import {
  DECLARED_MODULE_SETTINGS,
  DECLARED_PROFILE_KINDS,
  FIELD_TYPES,
  type ModuleSettings,
  type OptionSource,
  type ProfileFieldDeclaration,
  type ProfileKindDeclaration,
  type SettingField,
} from '@flowplane/contracts';
import { ProfilesException } from '../profiles.exception';
import type { ResolvedField, ResolvedKind, SettingRef } from './profile-kind.model';

/** The live option sources the profiles service knows how to fetch. */
export const OPTION_SOURCES: readonly OptionSource[] = ['llm.providers', 'guard.guards'];

/** Thrown at boot when a kind declaration is broken; the message lists every problem. */
export class KindDeclarationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid profile kind declarations:\n  - ${problems.join('\n  - ')}`);
    this.name = 'KindDeclarationError';
  }
}

/** Splits `<module>/<key>` or `<module>.<key>` at the first separator (`/` preferred, keys may hold dots). */
export function parseSettingRef(raw: string): SettingRef | undefined {
  const slash = raw.indexOf('/');
  const at = slash >= 0 ? slash : raw.indexOf('.');
  if (at <= 0 || at === raw.length - 1) return undefined;
  return { module: raw.slice(0, at), key: raw.slice(at + 1), raw };
}

/**
 * Every profile kind of the platform, resolved once at boot: `setting_ref` fields inherit label,
 * description, type, sensitive, env_var, default and options from the referenced module setting
 * (inline keys win). A broken declaration (dangling `setting_ref`, unknown type or option source,
 * duplicate kind or field) refuses the boot with a message naming the kind and field.
 */
export class KindRegistry {
  private readonly kinds = new Map<string, ResolvedKind>();

  constructor(
    kinds: readonly ProfileKindDeclaration[] = DECLARED_PROFILE_KINDS,
    settings: readonly ModuleSettings[] = DECLARED_MODULE_SETTINGS,
  ) {
    const settingFields = new Map<string, Map<string, SettingField>>();
    for (const m of settings) settingFields.set(m.module, new Map(m.fields.map((f) => [f.key, f])));
    const problems: string[] = [];
    for (const decl of kinds) {
      if (this.kinds.has(decl.id)) {
        problems.push(
          `profile kind "${decl.id}" is declared twice (kind ids are global: nodes reference them by id alone)`,
        );
        continue;
      }
      const fields: ResolvedField[] = [];
      const seen = new Set<string>();
      for (const f of decl.fields) {
        const where = `profile kind "${decl.id}" field "${f.key}"`;
        if (seen.has(f.key)) {
          problems.push(`${where} is declared twice`);
          continue;
        }
        seen.add(f.key);
        const resolved = resolveField(f, where, settingFields, problems);
        if (resolved) fields.push(resolved);
      }
      this.kinds.set(decl.id, {
        id: decl.id,
        module: decl.module,
        name: decl.name,
        ...(decl.description !== undefined ? { description: decl.description } : {}),
        ...(decl.icon !== undefined ? { icon: decl.icon } : {}),
        fields,
        fieldMap: new Map(fields.map((f) => [f.key, f])),
      });
    }
    if (problems.length) throw new KindDeclarationError(problems);
  }

  /** Every kind, in declaration order. */
  all(): ResolvedKind[] {
    return [...this.kinds.values()];
  }

  /** The kind with that id, if declared. */
  byId(kind: string): ResolvedKind | undefined {
    return this.kinds.get(kind);
  }

  /** The kind `kind` owned by `module`; 404 otherwise. */
  require(module: string, kind: string): ResolvedKind {
    const found = this.kinds.get(kind);
    if (!found || found.module !== module) throw ProfilesException.kindNotFound(module, kind);
    return found;
  }

  /** The kind with that id; 404 otherwise. */
  requireKind(kind: string): ResolvedKind {
    const found = this.kinds.get(kind);
    if (!found) throw ProfilesException.unknownKind(kind);
    return found;
  }
}

function resolveField(
  f: ProfileFieldDeclaration,
  where: string,
  settingFields: ReadonlyMap<string, ReadonlyMap<string, SettingField>>,
  problems: string[],
): ResolvedField | undefined {
  let inherited: SettingField | undefined;
  let ref: SettingRef | undefined;
  if (f.setting_ref !== undefined) {
    ref = parseSettingRef(f.setting_ref);
    const fields = ref && settingFields.get(ref.module);
    inherited = ref && fields?.get(ref.key);
    if (!inherited) {
      const hint = !ref
        ? 'expected "<module>/<key>" or "<module>.<key>"'
        : !fields
          ? `no module "${ref.module}" declares settings (declared: ${[...settingFields.keys()].join(', ') || 'none'})`
          : `module "${ref.module}" declares no setting "${ref.key}" (declared: ${[...fields.keys()].join(', ')})`;
      problems.push(`${where}: setting_ref "${f.setting_ref}" names no declared module setting; ${hint}`);
      return undefined;
    }
  }
  const type = f.type ?? inherited?.type ?? 'string';
  if (!FIELD_TYPES.includes(type))
    problems.push(`${where}: unknown type "${type}" (one of ${FIELD_TYPES.join(', ')})`);
  if (f.options_ref !== undefined && !OPTION_SOURCES.includes(f.options_ref)) {
    problems.push(`${where}: unknown options_ref "${f.options_ref}" (one of ${OPTION_SOURCES.join(', ')})`);
  }
  const pick = <K extends 'label' | 'description' | 'env_var' | 'default' | 'options' | 'sensitive'>(k: K) =>
    f[k] !== undefined ? f[k] : inherited?.[k];
  const field: ResolvedField = {
    key: f.key,
    label: pick('label') ?? f.key,
    type,
    required: f.required === true,
    sensitive: pick('sensitive') === true || type === 'secret',
    overridable: f.overridable === true,
  };
  const description = pick('description');
  if (description !== undefined) field.description = description;
  const dflt = pick('default');
  if (dflt !== undefined) field.default = dflt;
  const envVar = pick('env_var');
  if (envVar !== undefined) field.env_var = envVar;
  const options = pick('options');
  if (options !== undefined) field.options = [...options];
  if (f.options_ref !== undefined) field.options_ref = f.options_ref;
  if (f.endpoint === true) field.endpoint = true;
  if (ref) field.setting_ref = ref;
  return field;
}
