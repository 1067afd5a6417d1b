import type { NodeContext, NodeManifest, NodeOutput } from '@flowplane/flow/engine';
import type { NodeStepIdentity } from '@flowplane/platform/auth';

/** A remote node as flow-runtime knows it: the manifest and where to POST each step. */
export interface RemoteNodeRegistration {
  manifest: NodeManifest;
  invokeUrl: string;
  /** Per-step HTTP timeout in ms; undefined means the caller's default. */
  timeoutMs?: number;
  /** The service that registered it (`assistant`, from `svc:assistant`). */
  source: string;
}

/** What the remote handler needs besides the registration. */
export interface RemoteInvokeOptions {
  /** Timeout when the registration sets none (the engine's FLOW_NODE_TIMEOUT_MS); 0 disables it. */
  defaultTimeoutMs: number;
  /**
   * Mints the step's token (`sub: run:<runId>/<nodeId>`, `aud: node:<type>`, no permissions), valid
   * `ttlSeconds`; the call goes without `authorization` when absent. Never a service token: the
   * remote handler is outside the platform's trust.
   */
  stepToken?: (step: NodeStepIdentity, ttlSeconds: number) => Promise<string>;
  /** Why the invoke URL may not be called (plain http to a host outside the allow list), if so. */
  urlProblem?: (url: URL) => string | undefined;
  /** Request id to forward as `X-Request-Id`. */
  requestId?: () => string | undefined;
  fetch?: typeof fetch;
}

/** Body flow-runtime POSTs to the invoke URL. */
export interface RemoteInvokeRequest {
  runId: string;
  nodeId: string;
  /** The step's idempotency key (also sent as the `Idempotency-Key` header): the same when the step runs again. */
  stepKey: string;
  config: Readonly<Record<string, unknown>>;
  packet: unknown;
  meta: Readonly<Record<string, unknown>>;
}

/** Failure of a remote node call; the engine routes it to the node's `Error` port (or fails the run). */
export class RemoteNodeError extends Error {
  readonly code = 'REMOTE_NODE_ERROR';
  constructor(
    message: string,
    readonly reason: 'status' | 'timeout' | 'aborted' | 'network' | 'malformed' | 'refused',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RemoteNodeError';
  }
}

/** Largest response body accepted from a remote node. */
export const MAX_REMOTE_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Life of a step token beyond the step's timeout: the handler checks it on receipt, not later. */
const STEP_TOKEN_SLACK_S = 60;
/** Longest step token life when the step has no timeout (the longest timeout a registration may ask). */
const STEP_TOKEN_MAX_S = 600;

/** The URL as shown in errors: no credentials, query or fragment (they may carry secrets). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

/**
 * Runs one step of a remote node: POST `{runId, nodeId, config, packet, meta}` as JSON with the
 * step's own token, under the registration's timeout and the step's abort signal. A 2xx answer of
 * `{outputs: [{port, packet}, ...]}` or one `{port, packet}` becomes the step's outputs (`204` or
 * `{outputs: []}` ends the branch), and its optional `logs` lines become `node.log` events of the
 * run; anything else throws a `RemoteNodeError`.
 */
export async function invokeRemoteNode(reg: RemoteNodeRegistration, ctx: NodeContext, options: RemoteInvokeOptions): Promise<NodeOutput[]> {
  const id = reg.manifest.id;
  const shown = displayUrl(reg.invokeUrl);
  const timeoutMs = reg.timeoutMs ?? options.defaultTimeoutMs;
  const fail = (reason: RemoteNodeError['reason'], message: string, status?: number) =>
    new RemoteNodeError(`remote node ${JSON.stringify(id)} (${reg.source}, POST ${shown}): ${message}`, reason, status);

  if (ctx.signal.aborted) throw fail('aborted', `call aborted before it started${reasonOf(ctx.signal)}`);
  // Registration refuses such URLs; this also covers one stored before the allow list existed.
  const refused = options.urlProblem?.(new URL(reg.invokeUrl));
  if (refused) throw fail('refused', refused);
  const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
  const signal = timeout ? AbortSignal.any([ctx.signal, timeout]) : ctx.signal;
  const body: RemoteInvokeRequest = { runId: ctx.runId, nodeId: ctx.nodeId, stepKey: ctx.stepKey, config: ctx.config, packet: ctx.input, meta: ctx.meta };

  let status: number;
  let contentType: string | null;
  let text: string;
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (options.stepToken) {
      const ttl = (timeoutMs > 0 ? Math.min(timeoutMs / 1000, STEP_TOKEN_MAX_S) : STEP_TOKEN_MAX_S) + STEP_TOKEN_SLACK_S;
      const step = { runId: ctx.runId, nodeId: ctx.nodeId, stepKey: ctx.stepKey, nodeType: id };
      headers.authorization = `Bearer ${await options.stepToken(step, ttl)}`;
    }
    const requestId = options.requestId?.();
    if (requestId) headers['x-request-id'] = requestId;
    headers['idempotency-key'] = ctx.stepKey;
    const res = await (options.fetch ?? globalThis.fetch)(reg.invokeUrl, { method: 'POST', headers, body: JSON.stringify(body), signal, redirect: 'error' });
    status = res.status;
    contentType = res.headers.get('content-type');
    const declared = Number(res.headers.get('content-length'));
    if (declared > MAX_REMOTE_RESPONSE_BYTES) {
      await res.body?.cancel().catch(() => undefined);
      throw fail('malformed', `response of ${declared} bytes is larger than ${MAX_REMOTE_RESPONSE_BYTES}`, status);
    }
    // The timeout covers the body: a node that sends headers and then stalls has not answered.
    text = await res.text();
  } catch (e) {
    if (e instanceof RemoteNodeError) throw e;
    if (ctx.signal.aborted) throw fail('aborted', `call aborted${reasonOf(ctx.signal)}`);
    if (timeout?.aborted) throw fail('timeout', `no answer within ${timeoutMs} ms`);
    throw fail('network', `unreachable (${describeCause(e)})`);
  }

  if (status < 200 || status > 299) {
    const detail = errorDetail(text, contentType);
    throw fail('status', `answered ${status}${detail ? `: ${detail}` : ''}`, status);
  }
  if (status === 204) return [];
  if (text.trim() === '') throw fail('malformed', `answered ${status} with an empty body`, status);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail('malformed', `answered ${status} with a body that is not JSON`, status);
  }
  const result = parseOutputs(parsed, reg.manifest);
  if (typeof result === 'string') throw fail('malformed', `malformed response: ${result}`, status);
  for (const line of logsOf(parsed)) ctx.log(line.message, line.data, line.level);
  return result;
}

const LOG_LEVELS = new Set(['debug', 'info', 'warn', 'error']);
/** Lines of the run log a remote node may send beside its outputs (`logs: [{level?, message, data?}]`, first 20); malformed lines are skipped. */
function logsOf(body: unknown): Array<{ level: 'debug' | 'info' | 'warn' | 'error'; message: string; data?: Record<string, unknown> }> {
  const logs = isRecord(body) && Array.isArray(body.logs) ? body.logs.slice(0, 20) : [];
  return logs.flatMap((l) =>
    isRecord(l) && typeof l.message === 'string' && l.message !== ''
      ? [{ level: (typeof l.level === 'string' && LOG_LEVELS.has(l.level) ? l.level : 'info') as 'info', message: l.message.slice(0, 2000), data: isRecord(l.data) ? l.data : undefined }]
      : [],
  );
}

/** The outputs of a response body, or what is wrong with it. */
export function parseOutputs(body: unknown, manifest: NodeManifest): NodeOutput[] | string {
  if (!isRecord(body)) return 'expected an object {outputs: [{port, packet}]} or {port, packet}';
  let list: unknown[];
  let where: (i: number) => string;
  if ('outputs' in body) {
    if (!Array.isArray(body.outputs)) return 'outputs must be an array of {port, packet}';
    list = body.outputs;
    where = (i) => `outputs[${i}]`;
  } else if ('port' in body) {
    list = [body];
    where = () => 'the output';
  } else {
    return 'expected an object {outputs: [{port, packet}]} or {port, packet}';
  }
  const declared = new Set(manifest.outputs.map((p) => p.port));
  const outputs: NodeOutput[] = [];
  for (let i = 0; i < list.length; i++) {
    const o = list[i];
    if (!isRecord(o)) return `${where(i)} must be an object {port, packet}`;
    if (typeof o.port !== 'string' || o.port === '') return `${where(i)}.port must be a non-empty string`;
    if (declared.size > 0 && !declared.has(o.port)) return `${where(i)}.port ${JSON.stringify(o.port)} is not an output of the manifest (${[...declared].join(', ')})`;
    if (!('packet' in o)) return `${where(i)} has no packet`;
    outputs.push({ port: o.port, packet: o.packet });
  }
  return outputs;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A short hint from an error body: its `message` (or `error`) field, else the start of the text. */
function errorDetail(text: string, contentType: string | null): string {
  if (!text) return '';
  if (contentType && /[/+]json\b/i.test(contentType)) {
    try {
      const body = JSON.parse(text) as unknown;
      if (isRecord(body)) {
        const m = body.message ?? body.error;
        if (typeof m === 'string') return clip(m);
        if (Array.isArray(m)) return clip(m.map(String).join('; '));
      }
    } catch {
      // fall through to the raw text
    }
  }
  return /^text\/plain\b/i.test(contentType ?? '') ? clip(text) : '';
}

function clip(s: string, max = 300): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

function reasonOf(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return r instanceof Error && r.message ? ` (${r.message})` : '';
}

function describeCause(e: unknown): string {
  const err = e as { message?: string; cause?: { code?: string; message?: string } };
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e);
}
