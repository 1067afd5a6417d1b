import { Injectable } from '@nestjs/common';
import type { DeploymentKind, DeploymentRecord, RouteSpec } from '@flowplane/contracts';
import { ServiceClients } from '@flowplane/platform/service';

/** A deployment as flow-runtime binds it. */
export type BoundDeployment = DeploymentRecord;

/** What the published version of a flow asks of its deployment. */
export interface FlowDeploymentRequest {
  name: string;
  route?: RouteSpec;
  event?: { name: string; filter?: string };
  templateId?: string;
  source?: string;
  /** Template activation: the route's auto-managed deployment is taken over even when another flow has it. */
  activation?: boolean;
}

/** The deployment a flow has after ensuring it, and why it is not the kind the flow asked for. */
export interface FlowDeploymentAnswer {
  created: boolean;
  reason?: string;
  deployment?: BoundDeployment;
}

/** Calls to the deployments service (internal routes, service token). */
@Injectable()
export class DeploymentsClient {
  constructor(private readonly clients: ServiceClients) {}

  private get client() {
    return this.clients.for('deployments', { timeoutMs: 5000 });
  }

  async all(): Promise<BoundDeployment[]> {
    return (await this.client.get<{ deployments: BoundDeployment[] }>('/internal/deployments')).deployments;
  }

  /** Creates the auto-managed deployment, or patches its stable variant in place (rule 11). */
  async ensure(id: string, body: { name: string; kind: DeploymentKind; labels: Record<string, string>; stable: { flowId: string; versionId?: string } }): Promise<{ created: boolean }> {
    return this.client.put<{ created: boolean }>(`/internal/deployments/${encodeURIComponent(id)}`, body);
  }

  /** Keeps, creates or replaces the deployment of a published flow (rule 5). */
  async ensureForFlow(flowId: string, body: FlowDeploymentRequest): Promise<FlowDeploymentAnswer> {
    return this.client.put<FlowDeploymentAnswer>(`/internal/deployments/flows/${encodeURIComponent(flowId)}`, body);
  }

  /** Throws a ServiceCallError with status 409 (and the spec body) when another deployment owns the route. */
  async checkRoute(route: RouteSpec, exemptId: string): Promise<void> {
    await this.client.post('/internal/deployments/route-check', { ...route, exemptId });
  }
}
