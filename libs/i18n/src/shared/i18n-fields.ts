import { applyDecorators } from '@nestjs/common';
import { IsNotEmpty, IsString, Matches, MaxLength, ValidateBy, type ValidationOptions } from 'class-validator';
import { LOCALE_CODE_PATTERN } from '../locales/domain/locale.entity';

/** Longest message key (report-keys fixes 200). */
export const MAX_KEY_LENGTH = 200;
/** Longest namespace. */
export const MAX_NAMESPACE_LENGTH = 100;
/** Longest message text (report-keys fixes 10,000; the same bound holds for every write). */
export const MAX_TEXT_LENGTH = 10_000;
/** Longest translator note. */
export const MAX_CONTEXT_LENGTH = 2_000;
/** Longest module name. */
export const MAX_MODULE_LENGTH = 100;

/** No C0/C1 control characters (a key or namespace with one cannot be shown or exported safely). */
export const NO_CONTROL_CHARS = /^[^\p{Cc}]*$/u;

/** A message key: 1 to 200 characters, no control characters. */
export const IsMessageKey = (field = 'key') =>
  applyDecorators(
    IsString(),
    IsNotEmpty(),
    MaxLength(MAX_KEY_LENGTH),
    Matches(NO_CONTROL_CHARS, { message: `${field} must not contain control characters` }),
  );

/** A namespace: up to 100 characters (empty is the default bucket), no control characters. */
export const IsNamespace = () =>
  applyDecorators(IsString(), MaxLength(MAX_NAMESPACE_LENGTH), Matches(NO_CONTROL_CHARS, { message: 'ns must not contain control characters' }));

/** A locale code: the shape of a URL segment (`pl`, `pt-BR`, `zh_Hant`). */
export const IsLocaleCode = (field = 'locale') =>
  applyDecorators(
    IsString(),
    Matches(LOCALE_CODE_PATTERN, {
      message: `${field} must be a locale code: letters and digits in parts joined by "-" or "_" (pl, pt-BR), at most 44 characters`,
    }),
  );

/** Message text: at most 10,000 characters. */
export const IsMessageText = (field = 'value') =>
  applyDecorators(IsString(), MaxLength(MAX_TEXT_LENGTH, { message: `${field} must be at most ${MAX_TEXT_LENGTH} characters` }));

/** An object mapping locale codes to texts of at most 10,000 characters (strings only). */
export function IsLocaleTextMap(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLocaleTextMap',
      validator: {
        validate: (value: unknown) => localeTextMapProblem(value) === undefined,
        defaultMessage: (args) => `${args?.property ?? 'translations'}: ${localeTextMapProblem(args?.value) ?? 'invalid'}`,
      },
    },
    options,
  );
}

function localeTextMapProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object mapping locale codes to texts';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 500) return 'may name at most 500 locales';
  for (const [locale, text] of entries) {
    if (!LOCALE_CODE_PATTERN.test(locale)) return `"${locale.slice(0, 50)}" is not a locale code (letters and digits joined by "-" or "_")`;
    if (typeof text !== 'string') return `the text of "${locale}" must be a string`;
    if (text.length > MAX_TEXT_LENGTH) return `the text of "${locale}" must be at most ${MAX_TEXT_LENGTH} characters`;
  }
  return undefined;
}
