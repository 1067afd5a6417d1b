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

/** A run's event stream, opened: its ids and the response whose body is the SSE stream. */
export interface OpenedRun {
  runId: string;
  versionId: string;
  versionHash: string;
  response: Response;
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
   * this streams with fetch directly). Throws UpstreamError when flow-runtime refuses or is down.
   */
  async startRun(body: { flowId: string; versionId?: string; input: unknown; meta: Record<string, unknown>; startedBy: string }, signal?: AbortSignal): Promise<OpenedRun> {
    const res = await this.stream('POST', '/internal/runs', INTERNAL_PERMS.runsStart, body, undefined, signal);
    return { runId: res.headers.get('x-run-id') ?? '', versionId: res.headers.get('x-version-id') ?? '', versionHash: res.headers.get('x-version-hash') ?? '', response: res };
  }

  /** A run's events after `afterSeq`, as an SSE response. */
  async runEvents(runId: string, afterSeq: number, signal?: AbortSignal): Promise<Response> {
    return this.stream('GET', `/internal/runs/${encodeURIComponent(runId)}/events`, INTERNAL_PERMS.runsRead, undefined, afterSeq > 0 ? String(afterSeq) : undefined, signal);
  }

  private async stream(method: 'GET' | 'POST', path: string, perm: string, body: unknown, lastEventId: string | undefined, signal?: AbortSignal): Promise<Response> {
    const base = this.flows.baseUrl;
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${await this.clients.token('flow-runtime', [perm])}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (lastEventId) headers['last-event-id'] = lastEventId;
    let res: Response;
    try {
      res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: signal ?? null });
    } catch (cause) {
      throw new UpstreamError('flow-runtime', 503, { message: `flow-runtime unreachable: ${method} ${path}` }, cause);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        /* not JSON */
      }
      throw new UpstreamError('flow-runtime', res.status, parsed);
    }
    return res;
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
