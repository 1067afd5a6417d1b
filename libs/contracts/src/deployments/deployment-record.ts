import type { DeploymentAuthMode, DeploymentKind } from '../events/deployments-changed.event';
import type { RouteSpec } from './route-key';

/**
 * A deployment as the deployments service hands it to flow-runtime (`GET /internal/deployments`):
 * the routing state, without the read-time enrichment (tags, contributes).
 */
export interface DeploymentRecord {
  id: string;
  name: string;
  kind: DeploymentKind;
  disabled: boolean;
  labels: Record<string, string>;
  stickyBy?: string;
  variants: Array<{ label: string; flowId: string; versionId?: string; weight: number }>;
  route?: RouteSpec;
  auth?: { mode: DeploymentAuthMode; perms?: string[] };
  revision: number;
  /**
   * Set on a deployment that publish or template activation manages for this flow: another
   * deployment naming the flow absorbs it (deletes it and takes the flow).
   */
  managedFor?: string;
}

/**
 * The canonical variant of a deployment, whose flow describes it (route, contributes, success
 * status): the one labelled `stable`, else the heaviest, else none.
 */
export function stableVariantOf<T extends { label: string; weight: number }>(variants: readonly T[]): T | undefined {
  return variants.find((v) => v.label === 'stable') ?? [...variants].sort((a, b) => b.weight - a.weight)[0];
}
