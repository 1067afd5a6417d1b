import { FIELD_TYPES, type FieldType, type ModuleSettings, type SettingField } from '@flowplane/contracts';

/** Module names and setting keys are path segments, token parts (`[[ module.key ]]`) and store keys. */
const MODULE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const SETTING_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Types a localized field may have: one text per language. */
const TEXT_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['string', 'textarea', 'url']);

/** The settings declarations are inconsistent; the service refuses to boot. */
export class SettingsDeclarationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`module settings declarations refused: ${problems.join('; ')}`);
    this.name = 'SettingsDeclarationError';
  }
}

/**
 * Every module's declared setting fields, checked once at boot. Declaring a field both `sensitive`
 * and `localized` is refused (localization.md, settings rule 8): localized text is meant to be shown
 * to readers in their language, a secret has exactly one value that is never shown.
 */
export class SettingsRegistry {
  private readonly byModule = new Map<string, ModuleSettings>();

  constructor(declarations: readonly ModuleSettings[]) {
    const problems = declarationProblems(declarations);
    if (problems.length) throw new SettingsDeclarationError(problems);
    for (const m of declarations) this.byModule.set(m.module, m);
  }

  /** Every declared module, in declaration order. */
  modules(): ModuleSettings[] {
    return [...this.byModule.values()];
  }

  /** The declarations of `module`, or undefined when no module declares settings under that name. */
  module(module: string): ModuleSettings | undefined {
    return this.byModule.get(module);
  }

  /** One field, or undefined when the module or the key is unknown. */
  field(module: string, key: string): SettingField | undefined {
    return this.byModule.get(module)?.fields.find((f) => f.key === key);
  }
}

function declarationProblems(declarations: readonly ModuleSettings[]): string[] {
  const problems: string[] = [];
  const modules = new Set<string>();
  for (const m of declarations) {
    if (!MODULE_NAME.test(m.module ?? '')) problems.push(`module name ${JSON.stringify(m.module)} must match ${MODULE_NAME}`);
    if (modules.has(m.module)) problems.push(`module ${m.module} is declared twice`);
    modules.add(m.module);
    const keys = new Set<string>();
    for (const f of m.fields ?? []) {
      const at = `${m.module}/${f.key}`;
      if (!SETTING_KEY.test(f.key ?? '')) problems.push(`${at}: key must match ${SETTING_KEY}`);
      if (keys.has(f.key)) problems.push(`${at}: key is declared twice`);
      keys.add(f.key);
      if (!FIELD_TYPES.includes(f.type)) problems.push(`${at}: unknown type ${JSON.stringify(f.type)} (one of ${FIELD_TYPES.join(', ')})`);
      if (f.sensitive && f.localized) problems.push(`${at}: a field cannot be both sensitive and localized`);
      if (f.localized && !TEXT_TYPES.has(f.type)) problems.push(`${at}: a localized field must be of type ${[...TEXT_TYPES].join(', ')}`);
      if (f.options !== undefined && (!Array.isArray(f.options) || f.options.length === 0 || !f.options.every((o) => typeof o === 'string'))) {
        problems.push(`${at}: options must be a non-empty list of strings`);
      }
      if (f.pattern !== undefined) {
        try {
          new RegExp(f.pattern);
        } catch {
          problems.push(`${at}: pattern ${JSON.stringify(f.pattern)} is not a regular expression`);
        }
      }
      if ((f.integer !== undefined || f.min !== undefined || f.max !== undefined) && f.type !== 'number') problems.push(`${at}: integer, min and max need type number`);
      if (f.min !== undefined && f.max !== undefined && f.min > f.max) problems.push(`${at}: min is larger than max`);
    }
  }
  return problems;
}
