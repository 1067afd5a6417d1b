import { Inject, Injectable } from '@nestjs/common';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig, ServiceClients } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { UpstreamClients } from '../../upstream/upstream.clients';
import { ServiceCallError, ServiceUnavailableError } from '@flowplane/contracts';
import { KnowledgeSearchClient } from '../../knowledge/use-cases/search.client';
import { ASSISTANT_TEMPLATES, RAG_NODE_ID, templateDocument, templateNamed } from '../domain/assistant-templates';
import { MODULE_FLOW_ID } from './ensure-module-flow.use-case';

/** Answer of the reset routes. */
export interface ResetResult {
  flowId: string;
  versionId: string;
  template: string;
  published: true;
  /** What the published flow lacks to work fully (an empty or missing knowledge index); omitted when nothing. */
  warnings?: string[];
}

/**
 * `POST /assistant/reset` and `POST /admin/assistant/reset`: saves a new version of the stable
 * variant's flow (the module flow by default) from an embedded template and publishes it; history
 * is kept. Both calls carry the caller's own token, so the version is the caller's: a person's
 * reset is never auto-upgraded over. Resolves once the version is live.
 */
@Injectable()
export class ResetAssistantUseCase {
  constructor(
    private readonly upstream: UpstreamClients,
    private readonly clients: ServiceClients,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    private readonly search: KnowledgeSearchClient,
  ) {}

  async execute(templateName: string | undefined, allowed: readonly string[] | undefined, callerToken: string): Promise<ResetResult> {
    const name = templateName ?? 'default';
    const choices = allowed ?? ASSISTANT_TEMPLATES.map((t) => t.name);
    const template = templateNamed(name);
    if (!template || !choices.includes(name)) {
      throw new DomainException('UNKNOWN_TEMPLATE', 400, `unknown template ${JSON.stringify(name)}; valid: ${choices.join(', ')}`);
    }
    const document = templateDocument(name);
    if (!document) {
      const shipped = ASSISTANT_TEMPLATES.filter((t) => t.document && choices.includes(t.name)).map((t) => t.name);
      throw new DomainException('TEMPLATE_NOT_AVAILABLE', 400, `template ${name} is not available yet; available: ${shipped.join(', ')}`);
    }
    const env = this.config as ServiceConfig & AssistantEnv;
    const deployment = await this.upstream.deployment(env.ASSISTANT_DEPLOYMENT_ID);
    const flowId = deployment?.variants.find((v) => v.label === 'stable')?.flowId ?? MODULE_FLOW_ID;
    const saved = await this.call<{ versionId: string }>('POST', `/flows/${encodeURIComponent(flowId)}/versions`, document, callerToken);
    await this.call('POST', `/flows/${encodeURIComponent(flowId)}/publish`, { versionID: saved.versionId }, callerToken);
    const warnings = await this.indexWarnings(document.nodes.filter((n) => n.action_ref === RAG_NODE_ID).map((n) => String(n.config?.index ?? 'svc_docs')));
    return { flowId, versionId: saved.versionId, template: name, published: true, ...(warnings.length ? { warnings } : {}) };
  }

  /**
   * A retrieval template publishes whatever its index holds (an operator may ingest afterwards);
   * the answer says when the index is missing or empty, or could not be checked.
   */
  private async indexWarnings(indexes: string[]): Promise<string[]> {
    const warnings: string[] = [];
    for (const index of [...new Set(indexes)]) {
      try {
        const { hits } = await this.search.query(index, 'probe', 1, AbortSignal.timeout(5_000));
        if (hits.length === 0) warnings.push(`the knowledge index ${index} is empty: fill it with assistant-ingest or POST /admin/assistant/ingest; until then the assistant answers without excerpts`);
      } catch (e) {
        if (e instanceof ServiceCallError && !(e instanceof ServiceUnavailableError) && e.status === 404) {
          warnings.push(`the knowledge index ${index} does not exist: fill it with assistant-ingest or POST /admin/assistant/ingest; until then the assistant answers without excerpts`);
        } else {
          warnings.push(`the knowledge index ${index} could not be checked (the search service did not answer); the flow is published anyway`);
        }
      }
    }
    return warnings;
  }

  /** A flow-runtime admin route as the caller; its refusals pass through with their status. */
  private async call<T>(method: 'POST', path: string, body: unknown, token: string): Promise<T> {
    const base = this.clients.for('flow-runtime').baseUrl;
    let res: Response;
    try {
      res = await fetch(`${base}/api/v1${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
    } catch {
      throw new DomainException('UPSTREAM_UNAVAILABLE', 503, 'flow-runtime is unavailable; try again shortly');
    }
    const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      const status = res.status >= 500 ? 503 : res.status;
      throw new DomainException(typeof data.code === 'string' ? data.code : 'RESET_REFUSED', status, typeof data.message === 'string' ? data.message : `flow-runtime answered ${res.status}`);
    }
    return data as T;
  }
}
