import { plainT, type Translate } from './flow-types';

/**
 * Pure logic of the deployments area: the variant split bar, the route a "try" call goes to, the
 * editable labels, the checks a draft passes before it is sent, and the 409 conflict body.
 */

export interface VariantDraft {
  label: string;
  flowId: string;
  versionId?: string;
  weight: number;
}

/** One segment of the split bar: the variant's share of the total weight. */
export interface SplitSegment {
  label: string;
  weight: number;
  /** Share in percent (0..100), rounded to one decimal; 0 for every segment when all weights are 0. */
  percent: number;
  /** Where the segment starts, in percent. */
  offset: number;
}

/** Weights are relative (90+10 = 9+1) and 0 is never selected: each variant's share of the sum. */
export function splitSegments(variants: ReadonlyArray<Pick<VariantDraft, 'label' | 'weight'>>): SplitSegment[] {
  const total = variants.reduce((s, v) => s + (Number.isFinite(v.weight) && v.weight > 0 ? v.weight : 0), 0);
  let offset = 0;
  return variants.map((v) => {
    const w = Number.isFinite(v.weight) && v.weight > 0 ? v.weight : 0;
    const exact = total > 0 ? (w / total) * 100 : 0;
    const seg = { label: v.label, weight: v.weight, percent: Math.round(exact * 10) / 10, offset: Math.round(offset * 10) / 10 };
    offset += exact;
    return seg;
  });
}

/** The split in words, for screen readers and as the bar's text alternative: "stable 90%, canary 10%". */
export function splitSummary(variants: ReadonlyArray<Pick<VariantDraft, 'label' | 'weight'>>, $t: Translate = plainT): string {
  const segs = splitSegments(variants);
  if (!segs.length) return $t('deployments.split.none', 'No variants.');
  if (segs.every((s) => s.percent === 0)) return $t('deployments.split.allZero', 'Every weight is 0: no variant is selected (calls answer 503).');
  return segs.map((s) => $t('deployments.split.part', '{label} {percent}%', { label: s.label, percent: s.percent })).join(', ');
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** An `x-route` label (`POST /orders/{id}`) split in method, path and the path's parameter names; undefined when it is not one. */
export function parseRoute(value: string | undefined): { method: string; path: string; params: string[] } | undefined {
  const m = /^([A-Z]+) (\/\S*)$/.exec((value ?? '').trim());
  if (!m || !(METHODS as readonly string[]).includes(m[1]) || m[2].includes('*')) return undefined;
  return { method: m[1], path: m[2], params: routeParams(m[2]) };
}

/** The `{name}` parameters of a route path, in order. */
export function routeParams(path: string): string[] {
  return [...path.matchAll(/\{([^}/]+)\}/g)].map((m) => m[1]);
}

/**
 * The address of a route path under the gateway's `/api/v1` with its parameters filled in (each
 * encoded, so a value cannot add path segments) and an optional query string; a parameter left
 * blank is reported in `missing`.
 */
export function routeUrl(path: string, values: Record<string, string>, query = ''): { url: string; missing: string[] } {
  const missing: string[] = [];
  const filled = path.replace(/\{([^}/]+)\}/g, (_, name: string) => {
    const v = (values[name] ?? '').trim();
    if (!v) missing.push(name);
    return encodeURIComponent(v);
  });
  const q = query.trim().replace(/^\?/, '');
  return { url: `/api/v1${filled}${q ? `?${q}` : ''}`, missing };
}

/** Labels as editable text, one `key=value` a line (`tag:shop` alone when the value is empty). */
export function labelsToText(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => (v === '' ? k : `${k}=${v}`))
    .join('\n');
}

/** The labels of the text form; problems name the line. */
export function textToLabels(text: string, $t: Translate = plainT): { labels: Record<string, string>; problems: string[] } {
  const labels: Record<string, string> = {};
  const problems: string[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const at = line.indexOf('=');
    const key = (at < 0 ? line : line.slice(0, at)).trim();
    const value = at < 0 ? '' : line.slice(at + 1).trim();
    if (!/^[a-z0-9._:/-]+$/.test(key)) problems.push($t('deployments.labels.badKey', 'Line {line}: a label key uses a-z, 0-9 and . _ : / - only.', { line: i + 1 }));
    else if (key in labels) problems.push($t('deployments.labels.twice', 'Line {line}: the label {key} is given twice.', { line: i + 1, key }));
    else labels[key] = value;
  });
  return { labels, problems };
}

export interface DeploymentDraft {
  name: string;
  kind: 'route' | 'subscriber' | 'invoke';
  labelsText: string;
  stickyBy: string;
  authMode: 'public' | 'authenticated' | 'perms';
  authPerms: string;
  variants: VariantDraft[];
}

/** What is wrong with a draft before it is sent, by field (`name`, `labels`, `variants`, `variants.<i>.label`, ...). */
export function draftProblems(d: DeploymentDraft, $t: Translate = plainT): Record<string, string> {
  const out: Record<string, string> = {};
  if (!d.name.trim()) out['name'] = $t('deployments.check.name', 'Give the deployment a name.');
  const { labels, problems } = textToLabels(d.labelsText, $t);
  if (problems.length) out['labels'] = problems.join(' ');
  else if (labels['x-route'] !== undefined && !parseRoute(labels['x-route'])) out['labels'] = $t('deployments.check.route', 'x-route is a method (GET, POST, PUT, PATCH, DELETE) and a path starting with /, for example {example}.', { example: 'POST /orders/{id}' });
  if (d.authMode === 'perms' && !splitList(d.authPerms).length) out['auth'] = $t('deployments.check.perms', 'Name at least one permission.');
  if (!d.variants.length) out['variants'] = $t('deployments.check.variants', 'Add at least one variant.');
  const seen = new Set<string>();
  d.variants.forEach((v, i) => {
    const label = v.label.trim();
    if (!label) out[`variants.${i}.label`] = $t('deployments.check.label', 'Give the variant a label.');
    else if (seen.has(label)) out[`variants.${i}.label`] = $t('deployments.check.labelTwice', 'Each variant needs its own label.');
    seen.add(label);
    if (!v.flowId.trim()) out[`variants.${i}.flowId`] = $t('deployments.check.flow', 'Choose a flow.');
    if (!Number.isInteger(v.weight) || v.weight < 0) out[`variants.${i}.weight`] = $t('deployments.check.weight', 'A weight is a whole number, 0 or more.');
  });
  return out;
}

/** A comma or space separated list, blanks dropped. */
export function splitList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The create/patch body of a draft (call after draftProblems found nothing). */
export function draftToBody(d: DeploymentDraft): {
  name: string;
  kind: DeploymentDraft['kind'];
  labels: Record<string, string>;
  stickyBy?: string;
  auth?: { mode: DeploymentDraft['authMode']; perms?: string[] };
  variants: VariantDraft[];
} {
  const { labels } = textToLabels(d.labelsText);
  return {
    name: d.name.trim(),
    kind: d.kind,
    labels,
    ...(d.stickyBy.trim() ? { stickyBy: d.stickyBy.trim() } : {}),
    ...(d.kind === 'route' ? { auth: { mode: d.authMode, ...(d.authMode === 'perms' ? { perms: splitList(d.authPerms) } : {}) } } : {}),
    variants: d.variants.map((v) => ({ label: v.label.trim(), flowId: v.flowId.trim(), ...(v.versionId?.trim() ? { versionId: v.versionId.trim() } : {}), weight: v.weight })),
  };
}

/** The deployment another one's route or flow conflicts with, from a 409 body (`ROUTE_CONFLICT`, `FLOW_CONFLICT`). */
export interface Conflict {
  id: string;
  name?: string;
  detail?: string;
  method?: string;
  path?: string;
  flowId?: string;
}

export function conflictOf(body: unknown): Conflict | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const id = b['conflicting_deployment_id'];
  if (typeof id !== 'string' || !id) return undefined;
  const str = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : undefined);
  return { id, name: str('conflicting_deployment_name'), detail: str('detail'), method: str('method'), path: str('path'), flowId: str('flowId') };
}

/** The server's 400 problems of labels (`details[].field` is `labels.<key>`), as one text naming each label. */
export function labelProblems(details: ReadonlyArray<{ field: string; problems: string[] }> | undefined): string | undefined {
  const hits = (details ?? []).filter((d) => d.field === 'labels' || d.field.startsWith('labels.'));
  return hits.length ? hits.map((d) => (d.field === 'labels' ? d.problems.join('; ') : `${d.field.slice('labels.'.length)}: ${d.problems.join('; ')}`)).join(' ') : undefined;
}
