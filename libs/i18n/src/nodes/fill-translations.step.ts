import type { FillReport, FillRequest, FillTranslations } from '../auto-translate/auto-translate.ports';
import { FillSettingsError, readFillNodeSettings, readList } from './fill-translations.settings';

/** What flow-runtime POSTs for a step of `i18n/fill-translations`. */
export interface FillNodeStep {
  runId?: string;
  nodeId?: string;
  config?: Record<string, unknown>;
  packet?: unknown;
  meta?: Record<string, unknown>;
}

/** One line of the run's log, as flow-runtime records a remote node's `logs`. */
export interface FillNodeLog {
  level: 'info' | 'warn';
  message: string;
  data?: Record<string, unknown>;
}

/** The step's answer: no outputs (the node ends its branch), the report in the run's log. */
export interface FillNodeAnswer {
  outputs: [];
  logs: FillNodeLog[];
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The request a step makes of the fill loop, or why it does nothing. */
export function fillRequestOf(step: FillNodeStep, deadline?: number): { request: FillRequest } | { skip: string } {
  const settings = readFillNodeSettings(step.config);
  const packet = isObject(step.packet) ? step.packet : {};
  const base = {
    mode: settings.mode,
    review: settings.review,
    limit: settings.limit,
    ...(settings.locales ? { locales: settings.locales } : {}),
    ...(deadline !== undefined ? { deadline } : {}),
    // Rule 8: never overwrite, whatever the stored config says.
    overwrite: false,
    includeProtected: false,
    usageContext: { purpose: 'node', ...(step.runId ? { runId: step.runId } : {}) },
  } satisfies Partial<FillRequest>;
  if (settings.keys) return { request: { ...base, keys: settings.keys } };
  // The event's keys (i18n.keys_changed carries `keys` and the namespace they live in).
  let eventKeys: string[] | undefined;
  try {
    eventKeys = readList(packet.keys, 'payload.keys');
  } catch {
    eventKeys = undefined;
  }
  if (eventKeys?.length) {
    const ns = typeof packet.ns === 'string' ? packet.ns : '';
    return { request: { ...base, keys: eventKeys, ns } };
  }
  if (settings.allKeys) return { request: { ...base, allKeys: true } };
  return { skip: 'no keys: the node has no keys setting, the event carries no payload.keys, and all_keys is off' };
}

/** One line summing up a report. */
export function describeReport(r: FillReport): string {
  const parts = [
    `${r.keysProcessed} key(s) processed`,
    `${r.localesFilled} locale(s) filled`,
    `${r.memoryHits} from translation memory`,
    `${r.held} held for review`,
    `${r.failed.length} failed`,
    `${r.skippedProtected} protected skipped`,
    `${r.remaining} key(s) remaining`,
    `${r.usage.calls} model call(s), ${r.usage.totalTokens} tokens`,
  ];
  return `fill-translations: ${parts.join(', ')}`;
}

/**
 * `i18n/fill-translations`: reads its settings by value kind, fills through the one fill loop and
 * answers no outputs, with the FillReport in the run's log (a warning when cells failed). A config
 * that cannot be read is a FillSettingsError (the run fails naming the setting).
 */
export async function fillTranslationsStep(step: FillNodeStep, fill: FillTranslations, deadline?: number, signal?: AbortSignal): Promise<FillNodeAnswer> {
  const planned = fillRequestOf(step, deadline);
  if ('skip' in planned) return { outputs: [], logs: [{ level: 'info', message: `fill-translations: nothing to do (${planned.skip})` }] };
  const report = await fill.run({ ...planned.request, ...(signal ? { signal } : {}) });
  const data = { ...report, failed: report.failed.slice(0, 50) } as unknown as Record<string, unknown>;
  return { outputs: [], logs: [{ level: report.failed.length ? 'warn' : 'info', message: describeReport(report), data }] };
}

export { FillSettingsError };
