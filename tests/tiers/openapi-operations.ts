import { SignJWT } from 'jose';
import { mintToken } from '@flowplane/platform/auth';
import { call, TEST_SECRET, token, until } from '../support/http';

/** What a protected operation asks of a token (`x-access` of the merged OpenAPI document). */
export interface AccessPolicy {
  active?: boolean;
  superuser?: boolean;
  allPerms?: string[];
  anyPerms?: string[];
  internal?: boolean;
  node?: string;
}

export type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
  example?: unknown;
}

export interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, unknown>;
  'x-access'?: AccessPolicy;
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Parameter> };
}

export interface Op {
  method: string;
  path: string;
  key: string;
  op: Operation;
  params: Parameter[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The merged document once every service contributed to it (no `x-unavailable-services`). */
export async function fetchOpenApi(baseUrl: string): Promise<OpenApiDoc> {
  const res = await until(
    () => call(`${baseUrl}/api/v1/openapi.json`),
    (r) => r.status === 200 && !r.body?.['x-unavailable-services'],
    15_000,
  );
  if (res.status !== 200 || res.body?.['x-unavailable-services']) throw new Error(`merged OpenAPI document unavailable: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body as OpenApiDoc;
}

/** Every operation of the document, parameters of the path item and the operation together. */
export function operations(doc: OpenApiDoc): Op[] {
  const out: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = ((item as { parameters?: Parameter[] }).parameters ?? []) as Parameter[];
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const own = (op.parameters ?? []).map((p) => ('$ref' in p ? doc.components.parameters?.[p.$ref.split('/').pop()!] : p)).filter((p): p is Parameter => !!p);
      const params = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      out.push({ method, path, key: `${method.toUpperCase()} ${path}`, op, params });
    }
  }
  return out;
}

/** Resolves a local `$ref` (one level at a time; callers recurse). */
export function deref(doc: OpenApiDoc, s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; i < 20 && typeof cur.$ref === 'string'; i++) cur = doc.components.schemas[cur.$ref.split('/').pop()!] ?? {};
  return cur;
}

/** A value routing accepts for a path parameter: its example, enum, default, else a plausible id. */
export function plausibleParam(doc: OpenApiDoc, p: Parameter): string {
  const s = deref(doc, p.schema);
  const v = p.example ?? s.example ?? s.enum?.[0] ?? s.default;
  if (v !== undefined && v !== null && String(v) !== '') return String(v);
  if (s.type === 'integer' || s.type === 'number') return '1';
  return `tier-${p.name.replace(/[^A-Za-z0-9]/g, '').toLowerCase() || 'x'}-1`;
}

/** The URL path of an operation with path parameters filled (`overrides` by name, raw). */
export function fillPath(doc: OpenApiDoc, o: Op, overrides: Record<string, string> = {}): string {
  return o.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name in overrides) return overrides[name];
    const p = o.params.find((x) => x.in === 'path' && x.name === name);
    return encodeURIComponent(p ? plausibleParam(doc, p) : `tier-${name}-1`);
  });
}

/** Public (security `[]`), protected (exactly the bearer scheme), or inconsistent (anything else). */
export function securityOf(o: Op): 'public' | 'protected' | 'inconsistent' {
  const s = o.op.security;
  if (!Array.isArray(s)) return 'inconsistent';
  if (s.length === 0) return o.op['x-access'] ? 'inconsistent' : 'public';
  if (JSON.stringify(s) === '[{"bearer":[]}]' && o.op['x-access'] && typeof o.op['x-access'] === 'object') return 'protected';
  return 'inconsistent';
}

/** The least user token the policy admits: every listed permission, the first of an any-of list. */
export function rightToken(policy: AccessPolicy, sub = 'tier-user', extra: { active?: boolean } = {}): Promise<string> {
  const perms = [...(policy.allPerms ?? []), ...(policy.anyPerms?.length ? [policy.anyPerms[0]] : [])];
  return token(sub, perms, { ...(policy.superuser ? { superuser: true } : {}), ...extra });
}

/** A token the policy refuses for want of one permission (undefined when it asks for none). */
export function missingPermToken(policy: AccessPolicy): Promise<string> | undefined {
  if (policy.superuser) return token('tier-user', [...(policy.allPerms ?? []), ...(policy.anyPerms ?? [])]);
  if (policy.allPerms?.length) return token('tier-user', [...policy.allPerms.slice(1), 'unrelated:perm']);
  if (policy.anyPerms?.length) return token('tier-user', ['unrelated:perm']);
  return undefined;
}

function b64url(v: unknown): string {
  return Buffer.from(JSON.stringify(v)).toString('base64url');
}

/** Tokens every protected route refuses with 401. */
export async function badTokens(): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: 'tier-admin', perms: ['admin:access'], superuser: true, iat: now - 60, exp: now + 3600 };
  const expired = await new SignJWT({ ...claims, iat: now - 3720, exp: now - 120 }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(TEST_SECRET));
  return {
    expired,
    'wrong secret': await mintToken('not-the-platform-secret-0123456789', { sub: 'tier-admin', perms: ['admin:access'], superuser: true }),
    'alg none': `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`,
  };
}

/** Runs `fn` over `items`, at most `limit` at a time. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i], i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** A request with a deadline: status, or `hang` when no answer came in time, or `reset` when the connection dropped. */
export async function send(url: string, init: RequestInit & { bearer?: string; timeoutMs?: number; statusOnly?: boolean } = {}): Promise<{ status: number | 'hang' | 'reset'; text: string }> {
  const headers = new Headers(init.headers);
  if (init.bearer) headers.set('authorization', `Bearer ${init.bearer}`);
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), init.timeoutMs ?? 10_000);
  try {
    const res = await fetch(url, { ...init, headers, signal: ctrl.signal, redirect: 'manual' });
    // A stream (SSE, a long poll) answers its status first; the matrix needs nothing more.
    if (init.statusOnly && !/json|text\/plain|problem/.test(res.headers.get('content-type') ?? '')) {
      await res.body?.cancel().catch(() => undefined);
      return { status: res.status, text: '' };
    }
    const text = await res.text();
    return { status: res.status, text };
  } catch (e) {
    if (ctrl.signal.aborted) return { status: 'hang', text: '' };
    return { status: 'reset', text: String((e as Error).cause ?? e) };
  } finally {
    clearTimeout(timer);
  }
}

/** The first list in an answer: the body itself, or its first array-valued property. */
function listIn(body: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(body)) return body.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null);
  if (typeof body !== 'object' || body === null) return [];
  for (const v of Object.values(body)) if (Array.isArray(v) && v.some((x) => typeof x === 'object' && x !== null)) return listIn(v);
  return [];
}

/**
 * Ids that exist, per operation and path parameter: for `/flows/{id}/versions/{versionId}`, the
 * first item of `GET /flows` gives `id` and the first of `GET /flows/<id>/versions` gives
 * `versionId` (by the parameter's name, else `id`, `name` or `key`). Requests reach handlers past
 * their 404 this way. Values `owned` accepts come first; operations other than GET get only those,
 * so nothing the platform seeded for itself is changed. Parameters nothing lists keep their
 * plausible value.
 */
export async function existingParams(baseUrl: string, doc: OpenApiDoc, ops: Op[], bearer: string, owned: (value: string) => boolean = () => true): Promise<Map<string, Record<string, string>>> {
  const lists = new Map<string, Promise<Array<Record<string, unknown>>>>();
  const listing = (prefix: string) => {
    if (!lists.has(prefix)) lists.set(prefix, send(`${baseUrl}${prefix}`, { bearer, timeoutMs: 5000 }).then((r) => (r.status === 200 ? listIn(safeJson(r.text)) : [])));
    return lists.get(prefix)!;
  };
  const out = new Map<string, Record<string, string>>();
  for (const o of ops) {
    const values: Record<string, string> = {};
    const segments = o.path.split('/');
    for (let i = 0; i < segments.length; i++) {
      const m = /^\{(.+)\}$/.exec(segments[i]);
      if (!m) continue;
      const prefix = segments.slice(0, i).map((s) => s.replace(/^\{(.+)\}$/, (_, n: string) => encodeURIComponent(values[n] ?? plausibleParam(doc, o.params.find((p) => p.name === n) ?? { name: n, in: 'path' })))).join('/');
      const items = await listing(prefix);
      const key = [m[1], 'id', 'name', 'key', 'module'].find((k) => items.some((it) => typeof it[k] === 'string' || typeof it[k] === 'number'));
      const candidates = key ? items.map((it) => it[key]).filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map(String) : [];
      // What the caller owns first; an operation that may change something gets nothing else.
      const hit = candidates.find(owned) ?? (o.method === 'get' ? candidates[0] : undefined);
      if (hit !== undefined) values[m[1]] = hit;
    }
    out.set(o.key, values);
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
