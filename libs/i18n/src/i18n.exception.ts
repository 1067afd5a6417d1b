import { DomainException, type FieldProblem } from '@flowplane/platform/http';

/** Stable codes of the i18n service's errors (the `code` field of the error body). */
export enum I18nExceptionCode {
  /** `I18N_STORE=none`: the module is disabled (catalog rule 8). */
  NotConfigured = 'I18N_NOT_CONFIGURED',
  /** No locale with that code in the registry. */
  LocaleNotFound = 'I18N_LOCALE_NOT_FOUND',
  /** A locale with that code exists already. */
  LocaleExists = 'I18N_LOCALE_EXISTS',
  /** No message at that (namespace, key, locale). */
  MessageNotFound = 'I18N_MESSAGE_NOT_FOUND',
  /** Input that does not fit; `details` names every failing field. */
  InvalidInput = 'I18N_INVALID_INPUT',
  /** `POST /i18n/report-keys` while I18N_AUTOREGISTER=false. */
  AutoregisterDisabled = 'I18N_AUTOREGISTER_DISABLED',
}

/** An i18n error: the global filter turns it into `{statusCode, error, code, message, requestId}`. */
export class I18nException extends DomainException {
  /** Catalog rule 8: the exact text the spec fixes. */
  static notConfigured(): I18nException {
    return new I18nException(I18nExceptionCode.NotConfigured, 503, 'i18n not configured');
  }

  static localeNotFound(code: string): I18nException {
    return new I18nException(I18nExceptionCode.LocaleNotFound, 404, `no locale "${code}"`);
  }

  static localeExists(code: string): I18nException {
    return new I18nException(I18nExceptionCode.LocaleExists, 409, `locale already exists: ${code}`);
  }

  static messageNotFound(ns: string, key: string, locale: string): I18nException {
    return new I18nException(
      I18nExceptionCode.MessageNotFound,
      404,
      `no message for key "${key}" in locale "${locale}"${ns ? ` of namespace "${ns}"` : ''}`,
    );
  }

  /** Same body shape as the platform validation pipe: `details: [{field, problems[]}]`. */
  static invalid(details: FieldProblem[]): I18nException {
    return new I18nException(
      I18nExceptionCode.InvalidInput,
      400,
      `invalid input: ${details.map((d) => d.field).join(', ')}`,
      { details },
    );
  }

  static autoregisterDisabled(): I18nException {
    return new I18nException(I18nExceptionCode.AutoregisterDisabled, 404, 'key auto-registration is disabled (I18N_AUTOREGISTER=false); register keys with an admin token through POST /api/v1/admin/i18n/report-keys');
  }

  private constructor(code: I18nExceptionCode, status: number, message: string, body?: Record<string, unknown>) {
    super(code, status, message, body);
  }
}
