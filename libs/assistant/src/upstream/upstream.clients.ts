import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Injectable } from '@nestjs/common';
import { INTERNAL_PERMS } from '@flowplane/contracts';
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
export class UpstreamClients {
  constructor(private readonly clients: ServiceClients) {}

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
  async startRun(body: { flowId: string; versionId?: string; input: unknown; meta: Record<string, unknown>; startedBy: string; events?: readonly string[] }, signal?: AbortSignal): Promise<OpenedRun> {
    const res = await this.stream('POST', '/internal/runs', INTERNAL_PERMS.runsStart, body, undefined, signal);
    return { runId: res.headers.get('x-run-id') ?? '', versionId: res.headers.get('x-version-id') ?? '', versionHash: res.headers.get('x-version-hash') ?? '', response: res };
  }

  /** A run's events after `afterSeq` (only the types of `events` when given), as an SSE response. */
  async runEvents(runId: string, afterSeq: number, signal?: AbortSignal, events?: readonly string[]): Promise<StreamedResponse> {
    const only = events?.length ? `?events=${events.map(encodeURIComponent).join(',')}` : '';
    return this.stream('GET', `/internal/runs/${encodeURIComponent(runId)}/events${only}`, INTERNAL_PERMS.runsRead, undefined, afterSeq > 0 ? String(afterSeq) : undefined, signal);
  }

  /**
   * One streaming call over node:http with a keep-alive agent. fetch would do, but its WHATWG
   * streams, signals and per-request objects cost a chat several times the CPU of the request
   * itself (profiled), and the relay only needs the bytes.
   */
  private async stream(method: 'GET' | 'POST', path: string, perm: string, body: unknown, lastEventId: string | undefined, signal?: AbortSignal): Promise<StreamedResponse> {
    const url = new URL(this.flows.baseUrl + path);
    const headers: Record<string, string | number> = { accept: 'text/event-stream', authorization: `Bearer ${await this.clients.token('flow-runtime', [perm])}` };
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const https = url.protocol === 'https:';
    let res: IncomingMessage;
    try {
      res = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = (https ? httpsRequest : httpRequest)(url, { method, headers, agent: https ? HTTPS_AGENT : HTTP_AGENT }, resolve);
        req.on('error', reject);
        // What node:http's `signal` option does (destroy the request and its response), without the
        // stream bookkeeping it attaches to every request (profiled on the chat path).
        if (signal) {
          const abort = () => req.destroy(abortError(signal));
          if (signal.aborted) abort();
          else {
            signal.addEventListener('abort', abort, { once: true });
            req.once('close', () => signal.removeEventListener('abort', abort));
          }
        }
        req.end(payload);
      });
    } catch (cause) {
      throw new UpstreamError('flow-runtime', 503, { message: `flow-runtime unreachable: ${method} ${path}` }, cause);
    }
    // A stream that breaks later reaches the reader through its iterator; never as an unhandled event.
    res.on('error', () => undefined);
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      let text = '';
      try {
        res.setEncoding('utf8');
        for await (const chunk of res) text += chunk as string;
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
    return { status, headers: { get: (name) => headerValue(res.headers[name.toLowerCase()]) }, body: res };
  }
}

const HTTP_AGENT = new HttpAgent({ keepAlive: true });
const HTTPS_AGENT = new HttpsAgent({ keepAlive: true });

/** The error a request aborted by `signal` ends with, as node:http gives it. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

function headerValue(v: string | string[] | undefined): string | null {
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
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
