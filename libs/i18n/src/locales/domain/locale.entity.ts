/** A locale of the registry (localization.md, the locale record). */
export interface Locale {
  /** How the language appears in URLs (`cz`); also the id in /admin/i18n/locales/{id}. */
  code: string;
  /** BCP 47 tag set by an admin (`cs`); unset means the alias table, then the code (rule 10). */
  language?: string;
  /** Display name (`Čeština`). */
  name?: string;
  /** Active locales are listed publicly and filled by bulk translation. */
  active: boolean;
  /** Undefined on a locale stored without a readable time (an older version, or written by hand). */
  createdAt?: Date;
  updatedAt?: Date;
}

/** Shape of a locale code: a URL segment of letters and digits in `-` or `_` separated parts. */
export const LOCALE_CODE_PATTERN = /^[A-Za-z0-9]{1,8}([_-][A-Za-z0-9]{1,8}){0,4}$/;
