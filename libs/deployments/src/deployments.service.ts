import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  type DeploymentChangeAction,
  type DeploymentKind,
  type DeploymentsChangedPayload,
  parseRouteLabel,
  routeKey,
  routeProblem,
  type RouteSpec,
  slugify,
  stickyValueOf,
  Topics,
  VariantSelector,
} from '@flowplane/contracts';
import type { Outbox } from '@flowplane/platform/bus';
import { DomainException } from '@flowplane/platform/http';
import { DuplicateKeyError, type StoreSession } from '@flowplane/platform/store';
import { computeContributes, type Contributes, metaRouteOf, subscribedEventOf } from './domain/contributes';
import { type Deployment, Labels, type RouteAuth, stableVariant, type Variant } from './domain/deployment';
import { deploymentNotFound, invalidDeployment, routeConflict } from './domain/deployment.errors';
import { DeploymentRepository } from './persistence/deployment.repository';
import { type FlowDocumentRef, FlowRuntimeClient } from './persistence/flow-runtime.client';

export const DEPLOYMENTS_OUTBOX = Symbol('DEPLOYMENTS_OUTBOX');

/** Who is acting. */
export interface Actor {
  sub: string;
}

/** Fields of a new deployment. */
export interface CreateDeployment {
  id?: string;
  name: string;
  kind: DeploymentKind;
  disabled?: boolean;
  labels?: Record<string, string>;
  stickyBy?: string;
  variants: Variant[];
  auth?: RouteAuth;
}

/** Fields a PATCH may carry (`stickyBy: null` clears it). */
export interface PatchDeployment {
  name?: string;
  kind?: DeploymentKind;
  disabled?: boolean;
  labels?: Record<string, string>;
  stickyBy?: string | null;
  variants?: Variant[];
  auth?: RouteAuth;
}

/** Contributions of enabled deployments to the platform's API descriptions. */
export interface Descriptions {
  routes: Array<{ method: string; path: string; success_status: number; summary?: string; deploymentId: string; deploymentName: string; auth: RouteAuth }>;
  events: Array<{ name: string; filter?: string; direction: 'subscribe' | 'publish'; deploymentId: string }>;
  /** Packet schemas of route deployments by name, for the OpenAPI description (first declaration wins). */
  packets: Record<string, Record<string, unknown>>;
  /** Packet schemas of subscriber deployments by name, for the AsyncAPI description (first declaration wins). */
  eventPackets: Record<string, Record<string, unknown>>;
}

/** A deployment as read: stored fields, derived tags, and contributions from its stable flow. */
export interface DeploymentRead {
  deployment: Deployment;
  contributes?: Contributes;
  /** Set when contributions could not be computed (flow-runtime unreachable, stable flow unpublished). */
  contributesError?: string;
}

const DEFAULT_AUTH: RouteAuth = { mode: 'authenticated' };
const ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;

/**
 * Deployments (assistant-deployments-profiles.md rules 11-17, issue 6 items 1-7): CRUD with
 * validation against the variants' flows, route claims unique by normalised (method, path),
 * selection, variants from templates, and `deployments.changed` through the outbox on every write.
 */
@Injectable()
export class DeploymentsService {
  private readonly selectors = new Map<string, { revision: number; selector: VariantSelector<Variant> }>();

  constructor(
    private readonly repo: DeploymentRepository,
    private readonly flows: FlowRuntimeClient,
    @Inject(DEPLOYMENTS_OUTBOX) private readonly outbox: Outbox,
  ) {}

  async list(): Promise<DeploymentRead[]> {
    return this.enrich(await this.repo.list());
  }

  async get(id: string): Promise<DeploymentRead> {
    const d = await this.repo.get(id);
    if (!d) throw deploymentNotFound(id);
    return (await this.enrich([d]))[0];
  }

  /** Stored deployments without enrichment (flow-runtime's sync). */
  async all(): Promise<Deployment[]> {
    return this.repo.list();
  }

  async create(input: CreateDeployment, actor: Actor): Promise<Deployment> {
    const id = input.id ?? `${slugify(input.name).slice(0, 40) || 'deployment'}-${randomUUID().slice(0, 8)}`;
    if (!ID.test(id)) throw invalidDeployment([{ field: 'id', problem: 'lowercase letters, digits, dots, dashes and underscores; at most 128 characters' }]);
    const now = new Date();
    const draft: Deployment = {
      id,
      name: input.name,
      kind: input.kind,
      disabled: input.disabled ?? false,
      labels: { ...(input.labels ?? {}) },
      stickyBy: input.stickyBy || undefined,
      variants: input.variants.map(cleanVariant),
      auth: input.kind === 'route' ? cleanAuth(input.auth ?? DEFAULT_AUTH) : undefined,
      revision: 1,
      createdAt: now,
      updatedAt: now,
      createdBy: actor.sub,
    };
    const deployment = await this.resolve(draft);
    await this.write(deployment, 'created', undefined, async (session) => {
      try {
        await this.repo.insert(deployment, session);
      } catch (e) {
        if (e instanceof DuplicateKeyError) throw new DomainException('DEPLOYMENT_EXISTS', 409, `deployment ${id} already exists`);
        throw e;
      }
    });
    return deployment;
  }

  async patch(id: string, patch: PatchDeployment, actor: Actor): Promise<Deployment> {
    void actor;
    const current = await this.repo.get(id);
    if (!current) throw deploymentNotFound(id);
    if (patch.kind !== undefined && patch.kind !== current.kind) {
      throw invalidDeployment([{ field: 'kind', problem: `kind cannot change (${current.kind}); create a new deployment instead` }]);
    }
    const changed = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined);
    const draft: Deployment = {
      ...current,
      name: patch.name ?? current.name,
      disabled: patch.disabled ?? current.disabled,
      labels: patch.labels !== undefined ? { ...patch.labels } : current.labels,
      stickyBy: patch.stickyBy === null ? undefined : (patch.stickyBy ?? current.stickyBy),
      variants: patch.variants !== undefined ? patch.variants.map(cleanVariant) : current.variants,
      auth: current.kind === 'route' ? cleanAuth(patch.auth ?? current.auth ?? DEFAULT_AUTH) : undefined,
      revision: current.revision + 1,
      updatedAt: new Date(),
    };
    // Labels and variants decide the route; anything else keeps the stored one, but is still checked
    // (an `auth` of mode perms without perms would let any active user through).
    const deployment = patch.labels !== undefined || patch.variants !== undefined ? await this.resolve(draft) : checked(draft);
    await this.write(deployment, 'updated', changed, async (session) => {
      if (!(await this.repo.replace(deployment, current.revision, session))) {
        throw new DomainException('DEPLOYMENT_CHANGED', 409, `deployment ${id} was changed concurrently; read it again and retry`);
      }
    }, current);
    return deployment;
  }

  async delete(id: string): Promise<void> {
    const current = await this.repo.get(id);
    if (!current) throw deploymentNotFound(id);
    await this.outbox.withTransaction(async (session) => {
      await this.repo.releaseClaims(id, session);
      if (!(await this.repo.delete(id, session))) throw deploymentNotFound(id);
      await this.announce(session, { ...current, revision: current.revision + 1 }, 'deleted');
    });
    this.selectors.delete(id);
  }

  /** The variant a caller with this meta gets (rule 13); 503 when every weight is zero. */
  async select(id: string, meta: Record<string, unknown> | undefined): Promise<{ deployment: Deployment; variant: Variant; sticky: boolean }> {
    const d = await this.repo.get(id);
    if (!d) throw deploymentNotFound(id);
    let cached = this.selectors.get(id);
    if (!cached || cached.revision !== d.revision) {
      cached = { revision: d.revision, selector: new VariantSelector(d.variants) };
      this.selectors.set(id, cached);
    }
    const sticky = stickyValueOf(meta, d.stickyBy);
    const variant = cached.selector.select(sticky);
    if (!variant) throw new DomainException('NO_ELIGIBLE_VARIANT', 503, `deployment ${id} has no eligible variant: every weight is zero`);
    return { deployment: d, variant, sticky: sticky !== undefined };
  }

  /** Creates a flow from a template (version one saved and published) and appends it as a variant. */
  async variantFromTemplate(id: string, input: { templateId: string; label: string; weight: number; pinVersion?: boolean }, actor: Actor): Promise<Deployment> {
    const current = await this.repo.get(id);
    if (!current) throw deploymentNotFound(id);
    if (current.variants.some((v) => v.label === input.label)) throw new DomainException('VARIANT_EXISTS', 409, `deployment ${id} already has a variant ${input.label}`);
    const flow = await this.flows.flowFromTemplate(input.templateId);
    const variant: Variant = { label: input.label, flowId: flow.flowId, weight: input.weight, ...(input.pinVersion ? { versionId: flow.versionId } : {}) };
    return this.patch(id, { variants: [...current.variants, variant] }, actor);
  }

  /**
   * Route pre-flight (activation): 409 with the spec body when another deployment than
   * `exemptId` owns the route.
   */
  async checkRoute(route: RouteSpec, exemptId?: string): Promise<void> {
    const claim = await this.repo.claimOf(route);
    if (claim && claim.deploymentId !== exemptId) {
      const owner = await this.repo.get(claim.deploymentId);
      throw routeConflict({ method: claim.method, path: claim.path }, { id: claim.deploymentId, name: owner?.name ?? claim.deploymentId });
    }
  }

  /**
   * Auto-managed deployments (rule 11, issue 6 item 10): creates the deployment with a `stable`
   * variant, or patches its stable variant in place, keeping variants operators added.
   */
  async ensure(input: { id: string; name: string; kind: DeploymentKind; labels: Record<string, string>; stable: { flowId: string; versionId?: string } }, actor: Actor): Promise<{ deployment: Deployment; created: boolean }> {
    const current = await this.repo.get(input.id);
    if (!current) {
      const d = await this.create({ id: input.id, name: input.name, kind: input.kind, labels: input.labels, variants: [{ label: 'stable', weight: 100, ...input.stable }] }, actor).catch(async (e) => {
        // A concurrent ensure created it first: patch instead.
        if (e instanceof DomainException && e.code === 'DEPLOYMENT_EXISTS') return undefined;
        throw e;
      });
      if (d) return { deployment: d, created: true };
      return this.ensure(input, actor);
    }
    const stable = current.variants.find((v) => v.label === 'stable');
    const variants = stable
      ? current.variants.map((v) => (v.label === 'stable' ? cleanVariant({ ...v, ...input.stable, versionId: input.stable.versionId }) : v))
      : [{ label: 'stable', weight: 100, ...input.stable }, ...current.variants];
    const labels = { ...current.labels, ...input.labels };
    const same = JSON.stringify(variants) === JSON.stringify(current.variants) && JSON.stringify(labels) === JSON.stringify(current.labels);
    if (same) return { deployment: current, created: false };
    return { deployment: await this.patch(input.id, { variants, labels }, actor), created: false };
  }

  /**
   * What enabled deployments add to the gateway's descriptions (rule 14, issue 6 item 12): routes
   * of route deployments (OpenAPI paths), events of subscriber deployments (AsyncAPI channels), and
   * the packet schemas their stable flows declare. Disabled deployments contribute nothing.
   */
  async descriptions(): Promise<Descriptions> {
    const enabled = (await this.repo.list()).filter((d) => !d.disabled);
    const stables = enabled.map((d) => stableVariant(d.variants));
    const docs = await this.flows.documents(stables.filter((v): v is Variant => !!v).map((v) => ({ flowId: v.flowId, versionId: v.versionId })));
    const out: Descriptions = { routes: [], events: [], packets: {}, eventPackets: {} };
    let k = 0;
    enabled.forEach((d, i) => {
      if (!stables[i]) return;
      const doc = docs[k++]?.document;
      const c = computeContributes(d, doc);
      for (const r of c.routes) out.routes.push({ ...r, deploymentId: d.id, deploymentName: d.name, auth: d.auth ?? DEFAULT_AUTH });
      for (const e of c.events) out.events.push({ ...e, deploymentId: d.id });
      // A packet belongs to the description its deployment contributes to: routes to OpenAPI, events to AsyncAPI.
      const into = d.kind === 'subscriber' ? out.eventPackets : out.packets;
      for (const p of c.packets) into[p.name] ??= (doc?.meta?.packets?.[p.name] as Record<string, unknown>) ?? {};
    });
    return out;
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Validates a draft against its flows and fills its route: every variant's flow (and pinned
   * version) must exist; a route deployment takes its route from `x-route`, else from the stable
   * flow's `meta.route`; a subscriber needs an event (`x-event`, else the stable flow's event source).
   */
  private async resolve(d: Deployment): Promise<Deployment> {
    checked(d);
    const problems: Array<{ field: string; problem: string }> = [];

    const refs = await this.flows.documents(d.variants.map((v) => ({ flowId: v.flowId, versionId: v.versionId })));
    refs.forEach((r, i) => {
      const v = d.variants[i];
      if (!r.found) problems.push({ field: `variants.${i}.${v.versionId && r.versionId === v.versionId ? 'versionId' : 'flowId'}`, problem: v.versionId ? `no flow ${v.flowId} with version ${v.versionId}` : `no flow ${v.flowId}` });
    });
    if (problems.length) throw invalidDeployment(problems);
    const stable = stableVariant(d.variants);
    const stableDoc = stable ? refs[d.variants.indexOf(stable)] : undefined;

    if (d.kind === 'route') {
      const label = d.labels[Labels.route];
      let route: RouteSpec | undefined;
      if (label !== undefined) {
        route = parseRouteLabel(label);
        const problem = route ? routeProblem(route) : 'expected "<METHOD> <path>", for example "POST /orders/{id}"';
        if (problem) throw invalidDeployment([{ field: `labels.${Labels.route}`, problem }]);
      } else {
        route = metaRouteOf(stableDoc?.document);
        if (!route) throw invalidDeployment([{ field: `labels.${Labels.route}`, problem: 'a route deployment needs an x-route label or a stable flow whose published version declares meta.route' }]);
        const problem = routeProblem(route);
        if (problem) throw invalidDeployment([{ field: 'variants', problem: `the stable flow's meta.route is invalid: ${problem}` }]);
      }
      return { ...d, route };
    }
    if (!subscribedEventOf(d.labels, stableDoc?.document)) {
      throw invalidDeployment([{ field: `labels.${Labels.event}`, problem: 'a subscriber deployment needs an x-event label or a stable flow starting with svc/event-source' }]);
    }
    return { ...d, route: undefined };
  }

  /** One transaction: the write, the route claim (rule 15), and the `deployments.changed` event. */
  private async write(d: Deployment, action: DeploymentChangeAction, changed: string[] | undefined, persist: (s: StoreSession) => Promise<void>, previous?: Deployment): Promise<void> {
    const moved = !previous || (previous.route ? routeKey(previous.route) : '') !== (d.route ? routeKey(d.route) : '');
    try {
      await this.outbox.withTransaction(async (session) => {
        await persist(session);
        if (moved) {
          if (previous) await this.repo.releaseClaims(d.id, session);
          if (d.route) await this.repo.claim(d.route, d.id, session);
        }
        await this.announce(session, d, action, changed);
      });
    } catch (e) {
      if (e instanceof DuplicateKeyError && d.route) {
        await this.checkRoute(d.route, d.id);
      }
      throw e;
    }
  }

  private async announce(session: StoreSession, d: Deployment, action: DeploymentChangeAction, changed?: string[]): Promise<void> {
    const payload: DeploymentsChangedPayload = {
      deploymentId: d.id,
      action,
      kind: d.kind,
      disabled: d.disabled,
      revision: d.revision,
      changedFields: changed,
      ...(action === 'deleted'
        ? {}
        : {
            variants: d.variants.map((v) => ({ ...v })),
            labels: { ...d.labels },
            stickyBy: d.stickyBy,
            route: d.route ? { ...d.route } : undefined,
            auth: d.auth ? { ...d.auth } : undefined,
          }),
    };
    await this.outbox.enqueue(session, Topics.DeploymentsChanged, payload, { key: d.id });
  }

  private async enrich(list: Deployment[]): Promise<DeploymentRead[]> {
    const stables = list.map((d) => stableVariant(d.variants));
    let docs: FlowDocumentRef[] | undefined;
    try {
      docs = await this.flows.documents(stables.filter((v): v is Variant => !!v).map((v) => ({ flowId: v.flowId, versionId: v.versionId })));
    } catch {
      docs = undefined;
    }
    let k = 0;
    return list.map((deployment, i) => {
      if (!stables[i]) return { deployment, contributes: { routes: [], events: [], packets: [] } };
      const doc = docs?.[k++];
      if (!docs) return { deployment, contributesError: 'flow-runtime is unavailable' };
      if (!doc?.document) return { deployment, contributes: computeContributes(deployment, undefined), contributesError: `the stable flow ${stables[i]!.flowId} has no published version` };
      return { deployment, contributes: computeContributes(deployment, doc.document) };
    });
  }
}

function cleanAuth(a: RouteAuth): RouteAuth {
  return { mode: a.mode, ...(a.perms?.length ? { perms: [...a.perms] } : {}) };
}

function cleanVariant(v: Variant): Variant {
  return { label: v.label, flowId: v.flowId, weight: v.weight, ...(v.versionId ? { versionId: v.versionId } : {}) };
}

/** The checks that need no flow: variant labels, `stickyBy`, `auth`. Throws 400 listing every problem; returns `d`. */
function checked(d: Deployment): Deployment {
  const problems: Array<{ field: string; problem: string }> = [];
  const labels = new Set<string>();
  d.variants.forEach((v, i) => {
    if (labels.has(v.label)) problems.push({ field: `variants.${i}.label`, problem: `duplicate label ${v.label}` });
    labels.add(v.label);
  });
  if (d.stickyBy !== undefined && !/^[A-Za-z0-9_.-]{1,64}$/.test(d.stickyBy)) problems.push({ field: 'stickyBy', problem: 'a field name of the run meta (letters, digits, _ . -)' });
  if (d.auth?.mode === 'perms' && !d.auth.perms?.length) problems.push({ field: 'auth.perms', problem: 'mode perms needs at least one permission' });
  if (problems.length) throw invalidDeployment(problems);
  return d;
}
