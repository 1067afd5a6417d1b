import { type PublicSettingsSnapshot, resolveLocalizedText, settingValueAsText } from '@flowplane/contracts';

/**
 * `[[ module.key ]]` settings tokens (localization.md, settings tokens rules 1–6), as pure functions.
 * Module and key have the shapes the settings registry allows; spaces inside the brackets are
 * optional.
 */
export const SETTINGS_TOKEN = /\[\[\s*([A-Za-z][A-Za-z0-9_-]*)\.([A-Za-z_][A-Za-z0-9_-]*)\s*\]\]/g;

/** The text of public setting `module`/`key`, or undefined when it is unknown, private, unset or empty. */
export type SettingLookup = (module: string, key: string) => string | undefined;

/** Plain text (titles, SEO metadata, catalog messages) or HTML (values escaped, markup untouched). */
export type TokenVariant = 'plain' | 'html';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** True when `text` may hold a token: the cheap test before any settings are read. */
export function hasSettingsToken(text: string): boolean {
  return text.includes('[[');
}

/**
 * Replaces every resolvable token in one pass. Substituted values are never rescanned (a value
 * holding `[[ other.key ]]` or `{{ .Name }}` is inserted as literal text), and a token the lookup
 * does not resolve stays verbatim.
 */
export function expandSettingsTokens(text: string, lookup: SettingLookup, variant: TokenVariant = 'plain'): string {
  if (!hasSettingsToken(text)) return text;
  return text.replace(SETTINGS_TOKEN, (token: string, module: string, key: string) => {
    const value = lookup(module, key);
    if (value === undefined || value === '') return token;
    return variant === 'html' ? escapeHtml(value) : value;
  });
}

/** Plain-text expansion: values inserted unescaped. */
export function expandPlain(text: string, lookup: SettingLookup): string {
  return expandSettingsTokens(text, lookup, 'plain');
}

/** HTML expansion: values escaped, the surrounding markup left as it is. */
export function expandHtml(text: string, lookup: SettingLookup): string {
  return expandSettingsTokens(text, lookup, 'html');
}

/**
 * A lookup over a public settings snapshot (which holds only public, non-sensitive settings, so
 * default deny is the snapshot's) for `locale`: localized settings resolve the requested locale,
 * its base, the source locale, then any non-empty value; an empty locale means the source language.
 */
export function snapshotLookup(snapshot: PublicSettingsSnapshot, locale: string | undefined): SettingLookup {
  const own = <T extends object>(o: T, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  return (module, key) => {
    const entry = own(snapshot.settings, module) ? snapshot.settings[module] : undefined;
    const setting = entry && own(entry, key) ? entry[key] : undefined;
    if (!setting) return undefined;
    if (setting.localized) return resolveLocalizedText(setting.value, locale, snapshot.sourceLocale)?.value;
    return settingValueAsText(setting.value);
  };
}

/** A lookup that resolves nothing: the expander without a reader expands nothing. */
export const NO_SETTINGS: SettingLookup = () => undefined;
