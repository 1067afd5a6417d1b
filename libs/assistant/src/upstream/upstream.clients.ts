import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { type Dispatcher, Pool } from 'undici';
import { INTERNAL_PERMS, ServiceCallError } from '@flowplane/contracts';
import type { FlowDocument } from '@flowplane/flow/ir';
import { ServiceClients } from '@flowplane/platform/service';

/** A variant of the assistant's deployment. */
export interface VariantRef {
  label: string;
  flowId: string;
  versionId?: string;
  weight?: number;
}

/** A deployment as the deployments service reports it (the fields the assistant reads). */
export interface DeploymentRef {
  id: string;
  kind: string;
  stickyBy?: string;
  variants: VariantRef[];
}

/** The published (or pinned) document of a flow. */
export interface FlowDocumentRef {
  flowId: string;
  found: boolean;
  published: boolean;
  versionId?: string;
  name?: string;
  hash?: string;
  document?: FlowDocument;
}

/** A streaming response of flow-runtime: its headers and its body bytes as they come. */
export interface StreamedResponse {
  status: number;
  headers: { get(name: string): string | null };
  body: AsyncIterable<Uint8Array>;
  /** Stops the stream: the body's reader gets an AbortError whose cause is `reason`. */
  abort(reason: Error): void;
}

/** A run's event stream, opened: its ids and the response whose body is the SSE stream. */
export interface OpenedRun {
  runId: string;
  versionId: string;
  versionHash: string;
  response: StreamedResponse;
}

/** Calls to deployments and flow-runtime over their internal routes, with the least service token. */
@Injectable()
export class UpstreamClients implements OnApplicationShutdown {
  /** Keep-alive connections to flow-runtime for run streams, per origin (one in practice). */
  private readonly pools = new Map<string, { pool: Pool; prefix: string }>();

  constructor(private readonly clients: ServiceClients) {}

  async onApplicationShutdown(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(pools.map((p) => p.pool.destroy()));
  }

  private get deployments() {
    return this.clients.for('deployments', { timeoutMs: 5000, retries: 1 });
  }

  private get flows() {
    return this.clients.for('flow-runtime', { timeoutMs: 10_000, retries: 1 });
  }

  /** Start-up calls fail fast: the seeder retries them itself, sooner than the client's backoff would. */
  private get startup() {
    return { flows: this.clients.for('flow-runtime', { timeoutMs: 10_000, retries: 0 }), deployments: this.clients.for('deployments', { timeoutMs: 5000, retries: 0 }) };
  }

  /** Picks a variant (rule 7 and 13: sticky by the deployment's `stickyBy` field of `meta`). */
  async select(deploymentId: string, meta: Record<string, unknown>): Promise<VariantRef> {
    const r = await this.deployments.post<{ variant: VariantRef }>(`/internal/deployments/${encodeURIComponent(deploymentId)}/select`, { meta }, { idempotent: true });
    return r.variant;
  }

  /** One deployment, or undefined (`startup`: no retries). */
  async deployment(id: string, startup = false): Promise<DeploymentRef | undefined> {
    const { deployments } = await (startup ? this.startup.deployments : this.deployments).get<{ deployments: DeploymentRef[] }>('/internal/deployments');
    return deployments.find((d) => d.id === id);
  }

  /** Creates the module's deployment (kind invoke, one variant `stable`), or patches its stable variant. */
  async ensureDeployment(id: string, body: { name: string; kind: 'invoke'; labels: Record<string, string>; stable: { flowId: string }; stickyBy: string }): Promise<void> {
    await this.startup.deployments.put(`/internal/deployments/${encodeURIComponent(id)}`, body);
  }

  /** Seeds the module flow: created and published on first sight, auto-upgraded by flow-runtime's rules later. */
  async seedFlow(flowId: string, body: { name: string; description?: string; document: FlowDocument }): Promise<{ action: string; versionId?: string; reason?: string }> {
    return this.startup.flows.put(`/internal/flows/${encodeURIComponent(flowId)}`, body);
  }

  /** Registers the assistant's templates with flow-runtime's registry (activation and GET /flows/templates read them there). */
  async registerTemplates(templates: Array<{ id: string; name: string; description: string; source: string; tags: string[]; document: FlowDocument }>): Promise<void> {
    await this.startup.flows.put('/internal/templates/providers/assistant', { templates });
  }

  /** The published (or pinned) document of each flow. */
  async documents(refs: Array<{ flowId: string; versionId?: string }>, startup = false): Promise<FlowDocumentRef[]> {
    return (await (startup ? this.startup.flows : this.flows).post<{ flows: FlowDocumentRef[] }>('/internal/flows/documents', { refs }, { idempotent: true })).flows;
  }

  /** LLM usage totals per run. */
  async usageOfRuns(runIds: string[]): Promise<Record<string, { calls: number; totalTokens: number; cost: number | null; currency: string | null }>> {
    return (await this.flows.post<{ runs: Record<string, { calls: number; totalTokens: number; cost: number | null; currency: string | null }> }>('/internal/llm/usage/runs', { runIds }, { idempotent: true, timeoutMs: 30_000 })).runs;
  }

  /**
   * Starts a run and opens its event stream in one call (the ServiceClient reads whole bodies, so
   * this streams itself). Throws UpstreamError when flow-runtime refuses or is down.
   */
  async startRun(body: { flowId: string; versionId?: string; input: unknown; meta: Record<string, unknown>; startedBy: string; deploymentVariant?: string; events?: readonly string[] }, signal?: AbortSignal): Promise<OpenedRun> {
    const res = await this.stream('POST', '/internal/runs', INTERNAL_PERMS.runsStart, body, undefined, signal);
    return { runId: res.headers.get('x-run-id') ?? '', versionId: res.headers.get('x-version-id') ?? '', versionHash: res.headers.get('x-version-hash') ?? '', response: res };
  }

  /** Cancels a run this service started (a chat that stopped waiting for it); false when it had ended already. */
  async cancelRun(runId: string, reason: string): Promise<boolean> {
    try {
      await this.flows.post(`/internal/runs/${encodeURIComponent(runId)}/cancel`, { reason }, { idempotent: true });
      return true;
    } catch (e) {
      if (e instanceof ServiceCallError && e.status === 409) return false;
      throw e;
    }
  }

  /** A run's events after `afterSeq` (only the types of `events` when given), as an SSE response. */
  async runEvents(runId: string, afterSeq: number, signal?: AbortSignal, events?: readonly string[]): Promise<StreamedResponse> {
    const only = events?.length ? `?events=${events.map(encodeURIComponent).join(',')}` : '';
    return this.stream('GET', `/internal/runs/${encodeURIComponent(runId)}/events${only}`, INTERNAL_PERMS.runsRead, undefined, afterSeq > 0 ? String(afterSeq) : undefined, signal);
  }

  /**
   * One streaming call on an undici pool, driven by a dispatch handler: the relay needs only the
   * status, three headers and the body bytes, and node:http's ClientRequest, agent bookkeeping and
   * IncomingMessage (header objects, stream state, an async iterator per response) cost a chat
   * more than the rest of the hop (profiled); fetch's WHATWG streams cost more still.
   */
  private async stream(method: 'GET' | 'POST', path: string, perm: string, body: unknown, lastEventId: string | undefined, signal?: AbortSignal): Promise<StreamedResponse> {
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${await this.clients.token('flow-runtime', [perm])}` };
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const res = new StreamingResponse(signal);
    try {
      const upstream = this.pool(this.flows.baseUrl);
      upstream.pool.dispatch({ path: upstream.prefix + path, method, headers, body: payload }, res);
    } catch (e) {
      res.onResponseError(undefined, e as Error);
    }
    let head: { status: number; headers: Record<string, string | string[] | undefined> };
    try {
      head = await res.head;
    } catch (cause) {
      throw new UpstreamError('flow-runtime', 503, { message: `flow-runtime unreachable: ${method} ${path}` }, cause);
    }
    const status = head.status;
    if (status < 200 || status > 299) {
      let text = '';
      try {
        const decoder = new TextDecoder();
        for await (const chunk of res) text += decoder.decode(chunk, { stream: true });
      } catch {
        /* the body is only a hint */
      }
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        /* not JSON */
      }
      throw new UpstreamError('flow-runtime', status, parsed);
    }
    return { status, headers: { get: (name) => headerValue(head.headers[name.toLowerCase()]) }, body: res, abort: (reason) => res.abort(reason) };
  }

  /** The pool of a base URL's origin, and the base URL's path to put before a route. */
  private pool(baseUrl: string): { pool: Pool; prefix: string } {
    let upstream = this.pools.get(baseUrl);
    if (!upstream) {
      const url = new URL(baseUrl);
      // Every open chat holds a connection for its run's whole stream: no cap on connections.
      const pool = new Pool(url.origin, {
        keepAliveTimeout: 30_000,
        headersTimeout: 10_000,
        // A run may stay quiet for long; the relay bounds it with ASSISTANT_RUN_TIMEOUT_MS.
        bodyTimeout: 0,
        connectTimeout: 10_000,
      });
      upstream = { pool, prefix: url.pathname.replace(/\/+$/, '') };
      this.pools.set(baseUrl, upstream);
    }
    return upstream;
  }
}

function headerValue(v: string | string[] | undefined): string | null {
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** The error a request aborted for `reason` ends with, as node:http gives it. */
function abortError(reason: unknown): Error {
  return Object.assign(new Error('The operation was aborted', { cause: reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/**
 * A dispatch handler that is also the response body: `head` resolves with the status and the
 * headers (names in lower case), the body's chunks queue until the reader takes them, and an error
 * (a broken connection, an abort through `signal`) reaches the reader through its iterator.
 */
class StreamingResponse implements Dispatcher.DispatchHandler, AsyncIterable<Uint8Array> {
  readonly head: Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>;
  private settleHead!: { resolve(h: { status: number; headers: Record<string, string | string[] | undefined> }): void; reject(e: Error): void };
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private error?: Error;
  private wake?: () => void;
  private controller?: Dispatcher.DispatchController;
  private unlisten?: () => void;

  constructor(private readonly signal?: AbortSignal) {
    this.head = new Promise((resolve, reject) => (this.settleHead = { resolve, reject }));
    // A refused head is read by `stream`; a later failure reaches the reader through its iterator.
    this.head.catch(() => undefined);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    const signal = this.signal;
    if (!signal || this.unlisten) return;
    const onAbort = () => controller.abort(abortError(signal.reason));
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener('abort', onAbort, { once: true });
      this.unlisten = () => signal.removeEventListener('abort', onAbort);
    }
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.settleHead.resolve({ status: statusCode, headers });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
    this.wakeReader();
  }

  onResponseEnd(): void {
    this.ended = true;
    this.unlisten?.();
    this.wakeReader();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.error = err;
    this.unlisten?.();
    this.settleHead.reject(err);
    this.wakeReader();
  }

  /** Aborts the request (a no-op once the response has ended or failed). */
  abort(reason: Error): void {
    if (this.ended || this.error) return;
    if (this.controller) this.controller.abort(abortError(reason));
    else this.onResponseError(undefined, abortError(reason));
  }

  private wakeReader(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    try {
      for (;;) {
        if (this.chunks.length > 0) {
          yield this.chunks.shift()!;
          continue;
        }
        if (this.error) throw this.error;
        if (this.ended) return;
        await new Promise<void>((r) => (this.wake = r));
      }
    } finally {
      // A reader that stops early (break, throw) releases the connection.
      if (!this.ended && !this.error) this.controller?.abort(new Error('reader stopped'));
    }
  }
}

/** A refusal or failure of an upstream service on a streaming call. */
export class UpstreamError extends Error {
  constructor(
    readonly service: string,
    readonly status: number,
    readonly body: Record<string, unknown>,
    cause?: unknown,
  ) {
    super(typeof body.message === 'string' ? body.message : `${service} answered ${status}`, { cause });
    this.name = 'UpstreamError';
  }
}
