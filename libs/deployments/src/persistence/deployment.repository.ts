import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { routeKey, type RouteSpec } from '@flowplane/contracts';
import { STORE } from '@flowplane/platform/service';
import { type Collection, DuplicateKeyError, type Store, type StoreDocument, type StoreSession } from '@flowplane/platform/store';
import type { Deployment } from '../domain/deployment';

interface DeploymentDoc extends StoreDocument, Omit<Deployment, 'id'> {}

/** One claimed route: `_id` is the route key (`GET /orders/{}`), so the store's unique id enforces rule 15. */
interface RouteClaimDoc extends StoreDocument {
  deploymentId: string;
  method: string;
  path: string;
}

/** One flow named by a deployment: `_id` is the flow id, so the store's unique id keeps a flow in one deployment. */
interface FlowClaimDoc extends StoreDocument {
  deploymentId: string;
}

const toDeployment = ({ _id, ...rest }: DeploymentDoc): Deployment => ({ id: _id, ...rest, labels: rest.labels ?? {}, variants: rest.variants ?? [] });

/** Deployments, the route claims that keep (method, path) unique across them, and the flow claims that keep a flow in one. */
@Injectable()
export class DeploymentRepository implements OnModuleInit {
  private readonly log = new Logger('DeploymentRepository');
  private readonly deployments: Collection<DeploymentDoc>;
  private readonly claims: Collection<RouteClaimDoc>;
  private readonly flowClaims: Collection<FlowClaimDoc>;

  constructor(@Inject(STORE) store: Store) {
    this.deployments = store.collection<DeploymentDoc>('deployments');
    this.claims = store.collection<RouteClaimDoc>('route_claims');
    this.flowClaims = store.collection<FlowClaimDoc>('flow_claims');
  }

  async onModuleInit(): Promise<void> {
    await this.claims.createIndex({ keys: { deploymentId: 1 }, name: 'deployment' });
    await this.flowClaims.createIndex({ keys: { deploymentId: 1 }, name: 'deployment' });
    await this.backfillFlowClaims();
  }

  /**
   * Deployments stored before flow claims existed get theirs; a flow already named by an earlier
   * deployment (by id) stays with it, and the overlap is logged for an operator to resolve.
   */
  private async backfillFlowClaims(): Promise<void> {
    for (const d of await this.list()) {
      for (const flowId of flowsOf(d)) {
        const held = await this.flowClaims.findOne({ _id: flowId });
        if (held) {
          if (held.deploymentId !== d.id) this.log.warn(`flow ${flowId} is named by deployments ${held.deploymentId} and ${d.id}; a flow belongs to one deployment`);
          continue;
        }
        try {
          await this.flowClaims.insertOne({ _id: flowId, deploymentId: d.id });
        } catch (e) {
          if (!(e instanceof DuplicateKeyError)) throw e;
        }
      }
    }
  }

  async list(): Promise<Deployment[]> {
    return (await this.deployments.find({}, { sort: { _id: 1 } })).map(toDeployment);
  }

  async get(id: string, session?: StoreSession): Promise<Deployment | undefined> {
    const d = await this.deployments.findOne({ _id: id }, { session });
    return d ? toDeployment(d) : undefined;
  }

  /** Inserts; DuplicateKeyError when the id exists. */
  async insert(d: Deployment, session: StoreSession): Promise<void> {
    const { id, ...rest } = d;
    await this.deployments.insertOne({ _id: id, ...stripUndefined(rest) }, { session });
  }

  /** Replaces when the stored revision is still `expectedRevision`; false when someone else wrote first. */
  async replace(d: Deployment, expectedRevision: number, session: StoreSession): Promise<boolean> {
    const { id, ...rest } = d;
    const res = await this.deployments.replaceOne({ _id: id, revision: expectedRevision }, stripUndefined(rest), { session });
    return res.matchedCount === 1;
  }

  async delete(id: string, session: StoreSession): Promise<boolean> {
    return (await this.deployments.deleteOne({ _id: id }, { session })).deletedCount === 1;
  }

  /** The deployment owning a route (by key), if any. */
  async claimOf(route: RouteSpec, session?: StoreSession): Promise<RouteClaimDoc | undefined> {
    return (await this.claims.findOne({ _id: routeKey(route) }, { session })) ?? undefined;
  }

  /** Claims a route for a deployment; DuplicateKeyError when another deployment holds it. */
  async claim(route: RouteSpec, deploymentId: string, session: StoreSession): Promise<void> {
    await this.claims.insertOne({ _id: routeKey(route), deploymentId, method: route.method, path: route.path }, { session });
  }

  async releaseClaims(deploymentId: string, session: StoreSession): Promise<void> {
    await this.claims.deleteMany({ deploymentId }, { session });
  }

  /** The deployment naming a flow, if any. */
  async flowClaimOf(flowId: string, session?: StoreSession): Promise<string | undefined> {
    return (await this.flowClaims.findOne({ _id: flowId }, { session }))?.deploymentId;
  }

  /** Claims the flows of a deployment; DuplicateKeyError when another deployment names one. */
  async claimFlows(flowIds: readonly string[], deploymentId: string, session: StoreSession): Promise<void> {
    for (const flowId of flowIds) await this.flowClaims.insertOne({ _id: flowId, deploymentId }, { session });
  }

  async releaseFlowClaims(deploymentId: string, session: StoreSession): Promise<void> {
    await this.flowClaims.deleteMany({ deploymentId }, { session });
  }
}

/** The distinct flows a deployment's variants name. */
export function flowsOf(d: Pick<Deployment, 'variants'>): string[] {
  return [...new Set(d.variants.map((v) => v.flowId))];
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
