import { isRequestLocale } from '@flowplane/platform/http';

/** What flow-runtime POSTs for each step of a remote node. */
export interface NodeStep {
  config?: Record<string, unknown>;
  packet?: unknown;
  meta?: Record<string, unknown>;
}

/** One output of a step, as flow-runtime reads it. */
export interface NodeStepOutput {
  port: string;
  packet: unknown;
}

/** The text disabled mode answers (catalog rule 8), also on the nodes' Error port. */
export const NOT_CONFIGURED = 'i18n not configured';

/** What the translate step needs of the Translation service (interpolation and token expansion included). */
export type StepTranslator = (ns: string, key: string, locale: string, args: Record<string, unknown>) => string | Promise<string>;

type Packet = Record<string, unknown>;
const isObject = (v: unknown): v is Packet => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{error}` on the Error port: the shape the engine gives a failed step's Error port too. */
export function errorOutput(message: string): { outputs: NodeStepOutput[] } {
  return { outputs: [{ port: 'Error', packet: { error: message } }] };
}

/** The locale a run carries in its metadata (`meta.locale`, set by whoever started it), if well-formed. */
function runLocale(meta: unknown): string | undefined {
  const value = isObject(meta) ? meta.locale : undefined;
  return typeof value === 'string' && isRequestLocale(value) ? value : undefined;
}

/** A problem with an optional string field of the packet, if any. */
function badField(packet: Packet, field: string, check?: (v: string) => boolean, shape = 'a string'): string | undefined {
  const v = packet[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || (check && v !== '' && !check(v))) return `${field} must be ${shape}`;
  return undefined;
}

/**
 * `i18n/translate`: `key` (required), `ns`, `locale`, `args` from the packet. The locale defaults to
 * the run's `meta.locale`, then `defaultLocale`. Translated carries {value, locale, key}; a missing
 * key or a field of the wrong type goes to Error.
 */
export async function translateStep(step: NodeStep, defaultLocale: string, translate: StepTranslator): Promise<{ outputs: NodeStepOutput[] }> {
  const packet = isObject(step.packet) ? step.packet : {};
  const key = packet.key;
  if (typeof key !== 'string' || key === '') return errorOutput('i18n/translate needs a non-empty string `key` in its input packet');
  const problem =
    badField(packet, 'ns') ??
    badField(packet, 'locale', isRequestLocale, 'a locale such as pl or pt-BR') ??
    (packet.args !== undefined && packet.args !== null && !isObject(packet.args) ? 'args must be an object' : undefined);
  if (problem) return errorOutput(`i18n/translate: ${problem}`);
  const ns = typeof packet.ns === 'string' ? packet.ns : '';
  const locale = (typeof packet.locale === 'string' && packet.locale) || runLocale(step.meta) || defaultLocale;
  const args = isObject(packet.args) ? packet.args : {};
  const value = await translate(ns, key, locale, args);
  return { outputs: [{ port: 'Translated', packet: { value, locale, key } }] };
}

/**
 * `i18n/resolve-locale`: the run's `meta.locale`, else the packet's `locale` (a fallback only),
 * else `defaultLocale`, on Resolved as {locale}.
 */
export function resolveLocaleStep(step: NodeStep, defaultLocale: string): { outputs: NodeStepOutput[] } {
  const packet = isObject(step.packet) ? step.packet : {};
  const problem = badField(packet, 'locale', isRequestLocale, 'a locale such as pl or pt-BR');
  if (problem) return errorOutput(`i18n/resolve-locale: ${problem}`);
  const locale = runLocale(step.meta) || (typeof packet.locale === 'string' && packet.locale) || defaultLocale;
  return { outputs: [{ port: 'Resolved', packet: { locale } }] };
}
