import { Injectable } from '@nestjs/common';
import { ServiceCallError, ServiceUnavailableError } from '@flowplane/contracts';
import { DomainException } from '@flowplane/platform/http';
import { ServiceClients } from '@flowplane/platform/service';
import type { FlowDocumentLike } from '../domain/contributes';

/** A variant's flow as flow-runtime describes it (`POST /internal/flows/documents`). */
export interface FlowDocumentRef {
  flowId: string;
  found: boolean;
  versionId?: string;
  published: boolean;
  document?: FlowDocumentLike;
}

/** A route flow-runtime's own controllers answer under /api/v1 (parameters as `{name}`; method `ALL` for every method). */
export interface OwnedRoute {
  method: string;
  path: string;
}

/** The calls the deployments service makes to flow-runtime (internal routes, service token). */
@Injectable()
export class FlowRuntimeClient {
  /** flow-runtime's own routes change only with its code: read once per process (again after a failure). */
  private owned?: Promise<OwnedRoute[]>;

  constructor(private readonly clients: ServiceClients) {}

  /** The routes flow-runtime's controllers answer themselves, which a route deployment may not claim. */
  ownedRoutes(): Promise<OwnedRoute[]> {
    this.owned ??= this.call(() => this.client.get<{ routes: OwnedRoute[] }>('/internal/flows/api-routes')).then(
      (r) => r.routes,
      (e) => {
        this.owned = undefined;
        throw e;
      },
    );
    return this.owned;
  }

  private get client() {
    return this.clients.for('flow-runtime', { timeoutMs: 5000 });
  }

  /** Documents behind variants, in the order asked; throws 503 when flow-runtime cannot be reached. */
  async documents(refs: Array<{ flowId: string; versionId?: string }>): Promise<FlowDocumentRef[]> {
    if (refs.length === 0) return [];
    const res = await this.call(() => this.client.post<{ flows: FlowDocumentRef[] }>('/internal/flows/documents', { refs }));
    return res.flows;
  }

  /** Creates a flow from a template, saves and publishes version one. */
  async flowFromTemplate(templateId: string): Promise<{ flowId: string; versionId: string }> {
    try {
      return await this.call(() => this.client.post<{ flowId: string; versionId: string }>('/internal/flows/from-template', { templateId }));
    } catch (e) {
      if (e instanceof ServiceCallError && e.status === 404) throw new DomainException('TEMPLATE_NOT_FOUND', 400, `no template ${templateId}`, { details: [{ field: 'templateId', problems: [`no template ${templateId}`] }] });
      throw e;
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof ServiceUnavailableError) throw new DomainException('FLOW_RUNTIME_UNAVAILABLE', 503, 'flow-runtime is unavailable; try again');
      if (e instanceof ServiceCallError && e.status !== undefined && e.status >= 500) throw new DomainException('FLOW_RUNTIME_UNAVAILABLE', 503, 'flow-runtime failed to answer; try again');
      throw e;
    }
  }
}
