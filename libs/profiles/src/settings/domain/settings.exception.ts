import { DomainException, type FieldProblem } from '@flowplane/platform/http';

/** Error codes of the settings feature. */
export enum SettingsExceptionCode {
  ModuleNotFound = 'SETTINGS_MODULE_NOT_FOUND',
  SettingNotFound = 'SETTING_NOT_FOUND',
  Invalid = 'SETTINGS_INVALID',
}

/** A settings request the caller can fix: unknown module or setting (404), invalid values (400). */
export class SettingsException extends DomainException {
  static moduleNotFound(module: string): SettingsException {
    return new SettingsException(SettingsExceptionCode.ModuleNotFound, 404, `no settings module ${module}`);
  }

  /** Same answer for unknown, private and sensitive settings: a caller learns nothing about private ones. */
  static publicSettingNotFound(module: string, key: string): SettingsException {
    return new SettingsException(SettingsExceptionCode.SettingNotFound, 404, `no public setting ${module}/${key}`);
  }

  static invalid(module: string, details: FieldProblem[]): SettingsException {
    return new SettingsException(SettingsExceptionCode.Invalid, 400, `invalid settings for module ${module}: ${details.map((d) => d.field).join(', ')}`, { details });
  }
}
