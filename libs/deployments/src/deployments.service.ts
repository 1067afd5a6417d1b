import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  type DeploymentChangeAction,
  type DeploymentKind,
  type DeploymentsChangedPayload,
  flowSubscriberDeploymentId,
  invokeDeploymentId,
  normalizeRoute,
  parseRouteLabel,
  reservedApiPathOwner,
  routeDeploymentId,
  routeKey,
  routeLabel,
  routeProblem,
  type RouteSpec,
  slugify,
  stickyValueOf,
  subscriberDeploymentId,
  Topics,
  VariantSelector,
} from '@flowplane/contracts';
import type { Outbox } from '@flowplane/platform/bus';
import { DomainException } from '@flowplane/platform/http';
import { DuplicateKeyError, type StoreSession } from '@flowplane/platform/store';
import { computeContributes, type Contributes, metaRouteOf, subscribedEventOf } from './domain/contributes';
import { type Deployment, Labels, type ManagedState, type RouteAuth, stableVariant, type Variant } from './domain/deployment';
import { deploymentNotFound, flowConflict, invalidDeployment, noEligibleVariant, routeConflict, routeOwned } from './domain/deployment.errors';
import { labelProblems } from './domain/labels';
import { DeploymentRepository, flowsOf } from './persistence/deployment.repository';
import { type FlowDocumentRef, FlowRuntimeClient, type OwnedRoute } from './persistence/flow-runtime.client';

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

/** What a published flow asks of its deployment (`PUT /internal/deployments/flows/{flowId}`). */
export interface FlowDeploymentRequest {
  flowId: string;
  name: string;
  /** The published version's `meta.route`. */
  route?: RouteSpec;
  /** The published version's event source: topic and optional filter. */
  event?: { name: string; filter?: string };
  templateId?: string;
  /** The module the flow's template came from (`x-source`). */
  source?: string;
  /** Template activation: takes the route's auto-managed deployment over even when another flow has it (rule 15 exempts that id). */
  activation?: boolean;
}

/** What ensuring a flow's deployment did. */
export interface FlowDeploymentResult {
  deployment?: Deployment;
  created: boolean;
  /** Why the flow got a kind other than it asked for, or why nothing changed. */
  reason?: string;
}

const DEFAULT_AUTH: RouteAuth = { mode: 'authenticated' };
// Long enough for `flow-` or `subscriber-` plus a 128-character flow id.
const ID = /^[a-z0-9][a-z0-9._-]{0,159}$/;
/** Ids of the auto-managed invoke deployments (`flow-<flowId>`); nobody else may take one. */
const INVOKE_PREFIX = 'flow-';
/** Labels that publish and activation set on the deployments they manage; operators' other labels are kept. */
const MANAGED_LABELS = [Labels.route, Labels.event, Labels.eventFilter, Labels.kind, Labels.templateId, Labels.source];

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

  /**
   * Creates a deployment. Its flows must exist and belong to no other deployment (409 naming it),
   * except that a flow's auto-managed deployment is absorbed: deleted, with its claims, in the same
   * transaction. `managedFor` marks a deployment publish or activation manages for that flow.
   */
  async create(input: CreateDeployment, actor: Actor, managedFor?: string, replaces?: Deployment): Promise<Deployment> {
    let id = input.id;
    if (id === undefined) {
      id = `${slugify(input.name).slice(0, 40) || 'deployment'}-${randomUUID().slice(0, 8)}`;
      if (id.startsWith(INVOKE_PREFIX)) id = `deployment-${id}`;
    }
    const problems = labelProblems(input.labels ?? {});
    if (!ID.test(id)) problems.unshift({ field: 'id', problem: 'lowercase letters, digits, dots, dashes and underscores; at most 160 characters' });
    else if (id.startsWith(INVOKE_PREFIX) && !managedFor) problems.unshift({ field: 'id', problem: `ids starting with "${INVOKE_PREFIX}" are kept for the invoke deployments publishing manages` });
    if (problems.length) throw invalidDeployment(problems);
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
      ...(managedFor ? { managedFor, managed: { name: input.name, labels: { ...(input.labels ?? {}) } } } : {}),
    };
    const deployment = await this.resolve(draft);
    const absorbed = await this.absorbed(deployment);
    if (replaces && !absorbed.some((a) => a.id === replaces.id)) absorbed.push(replaces);
    await this.write(deployment, 'created', undefined, async (session) => {
      try {
        await this.repo.insert(deployment, session);
      } catch (e) {
        if (e instanceof DuplicateKeyError) throw new DomainException('DEPLOYMENT_EXISTS', 409, `deployment ${id} already exists`);
        throw e;
      }
    }, undefined, absorbed);
    return deployment;
  }

  /** `managed` is set by publish only: what it wrote, so later operator edits can be told apart. */
  async patch(id: string, patch: PatchDeployment, actor: Actor, managed?: ManagedState): Promise<Deployment> {
    void actor;
    if (patch.labels !== undefined) {
      const problems = labelProblems(patch.labels);
      if (problems.length) throw invalidDeployment(problems);
    }
    const current = await this.repo.get(id);
    if (!current) throw deploymentNotFound(id);
    if (patch.kind !== undefined && patch.kind !== current.kind) {
      throw invalidDeployment([{ field: 'kind', problem: `kind cannot change (${current.kind}); create a new deployment instead` }]);
    }
    const changed = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined);
    const variants = patch.variants !== undefined ? patch.variants.map(cleanVariant) : current.variants;
    const managedFor = current.managedFor && variants.some((v) => v.flowId === current.managedFor) ? current.managedFor : undefined;
    const draft: Deployment = {
      ...current,
      name: patch.name ?? current.name,
      disabled: patch.disabled ?? current.disabled,
      labels: patch.labels !== undefined ? { ...patch.labels } : current.labels,
      // Empty means a non-sticky draw (rule 13), the same as clearing it with null.
      stickyBy: patch.stickyBy === null || patch.stickyBy === '' ? undefined : (patch.stickyBy ?? current.stickyBy),
      variants,
      auth: current.kind === 'route' ? cleanAuth(patch.auth ?? current.auth ?? DEFAULT_AUTH) : undefined,
      revision: current.revision + 1,
      updatedAt: new Date(),
      // A deployment whose variants no longer name the flow it was made for is the operator's now.
      managedFor,
      managed: managedFor ? (managed ?? current.managed) : undefined,
    };
    // Labels and variants decide the route; anything else keeps the stored one, but is still checked
    // (an `auth` of mode perms without perms would let any active user through).
    const deployment = patch.labels !== undefined || patch.variants !== undefined ? await this.resolve(draft) : checked(draft);
    const absorbed = patch.variants !== undefined ? await this.absorbed(deployment) : [];
    await this.write(deployment, 'updated', changed, async (session) => {
      if (!(await this.repo.replace(deployment, current.revision, session))) {
        throw new DomainException('DEPLOYMENT_CHANGED', 409, `deployment ${id} was changed concurrently; read it again and retry`);
      }
    }, current, absorbed);
    return deployment;
  }

  async delete(id: string): Promise<void> {
    const current = await this.repo.get(id);
    if (!current) throw deploymentNotFound(id);
    await this.outbox.withTransaction(async (session) => {
      await this.remove(current, session);
    });
    this.selectors.delete(id);
  }

  /** Deletes a deployment with its route and flow claims and announces it, inside a transaction. */
  private async remove(d: Deployment, session: StoreSession): Promise<void> {
    await this.repo.releaseClaims(d.id, session);
    await this.repo.releaseFlowClaims(d.id, session);
    if (!(await this.repo.delete(d.id, session))) throw deploymentNotFound(d.id);
    await this.announce(session, { ...d, revision: d.revision + 1 }, 'deleted');
  }

  /**
   * The variant a caller with this meta gets (rule 13). Every weight zero is the deployment's
   * state, not an outage: 409 NO_ELIGIBLE_VARIANT telling the operator what to change (a retry
   * cannot succeed until someone does).
   */
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
    if (!variant) throw noEligibleVariant(id);
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
    const owner = await this.ownerOf(route);
    if (owner) throw routeOwned(route, owner);
    const claim = await this.repo.claimOf(route);
    if (claim && claim.deploymentId !== exemptId) {
      const owner = await this.repo.get(claim.deploymentId);
      throw routeConflict({ method: claim.method, path: claim.path }, { id: claim.deploymentId, name: owner?.name ?? claim.deploymentId });
    }
  }

  /**
   * A deployment a module keeps (`PUT /internal/deployments/{id}`): creates it with a `stable`
   * variant, or patches its stable variant in place, keeping variants operators added. It is the
   * module's, not auto-managed: it absorbs the auto-managed deployments of the flows it names.
   */
  async ensure(input: { id: string; name: string; kind: DeploymentKind; labels: Record<string, string>; stable: { flowId: string; versionId?: string }; stickyBy?: string }, actor: Actor): Promise<{ deployment: Deployment; created: boolean }> {
    const current = await this.repo.get(input.id);
    if (!current) {
      const d = await this.create({ id: input.id, name: input.name, kind: input.kind, labels: input.labels, stickyBy: input.stickyBy, variants: [{ label: 'stable', weight: 100, ...input.stable }] }, actor).catch(async (e) => {
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
   * The deployment of a published flow (rules 5 and 11): every published flow has exactly one.
   * A flow another deployment names (an operator's or a module's) keeps it. Otherwise the flow's
   * auto-managed deployment is created, or patched in place (its stable variant follows the
   * publish pointer; variants and labels operators added are kept): a route deployment
   * (`route-<method>-<path-slug>`) when `meta.route` asks for a route nobody else holds, a
   * subscriber (`subscriber-<template-slug>`, or `subscriber-<flowId>`) for an event source, else
   * an `invoke` deployment (`flow-<flowId>`). A kind change replaces the previous one.
   */
  async ensureForFlow(req: FlowDeploymentRequest, actor: Actor): Promise<FlowDeploymentResult> {
    const holderId = await this.repo.flowClaimOf(req.flowId);
    const holder = holderId ? await this.repo.get(holderId) : undefined;
    if (holder && holder.managedFor !== req.flowId) return { deployment: holder, created: false, reason: `the flow belongs to deployment ${holder.id}` };
    const target = await this.flowTarget(req, holder);
    if (!target) return { created: false, reason: `deployment id ${invokeDeploymentId(req.flowId)} is taken by another deployment` };
    const stable: Variant = { label: 'stable', flowId: req.flowId, weight: 100 };
    if (holder && holder.id === target.id && holder.kind === target.kind && !target.replaces) {
      const labels = refreshedLabels(holder, target.labels);
      // An operator's rename is kept like their labels; only a name publish set follows the flow.
      const name = holder.managed && holder.name !== holder.managed.name ? holder.name : req.name;
      const hasStable = holder.variants.some((v) => v.label === 'stable');
      // The operator's weight and version pin on the stable variant stay; publish never sets a pin.
      const variants = hasStable ? holder.variants.map((v) => (v.label === 'stable' ? { ...stable, weight: v.weight, ...(v.versionId ? { versionId: v.versionId } : {}) } : v)) : [stable, ...holder.variants];
      const managed: ManagedState = { name: req.name, labels: target.labels };
      if (JSON.stringify(variants) === JSON.stringify(holder.variants) && JSON.stringify(labels) === JSON.stringify(holder.labels) && holder.name === name && JSON.stringify(managed) === JSON.stringify(holder.managed)) {
        return { deployment: holder, created: false, reason: target.reason };
      }
      return { deployment: await this.patch(holder.id, { name, labels, variants }, actor, managed), created: false, reason: target.reason };
    }
    // New, or a change of kind or route: the previous auto-managed deployment is absorbed by the new one.
    const carried = holder ? holder.variants.filter((v) => v.label !== 'stable') : [];
    try {
      const deployment = await this.create({ id: target.id, name: req.name, kind: target.kind, labels: target.labels, variants: [stable, ...carried] }, actor, req.flowId, target.replaces);
      return { deployment, created: true, reason: target.reason };
    } catch (e) {
      // A concurrent publish of the same flow created it first: it is in place now.
      if (e instanceof DomainException && (e.code === 'DEPLOYMENT_EXISTS' || e.code === 'FLOW_CONFLICT')) {
        const now = await this.repo.flowClaimOf(req.flowId);
        if (now) return { deployment: await this.repo.get(now), created: false };
      }
      throw e;
    }
  }

  /** Id, kind and labels of the deployment a published flow gets; undefined when even its invoke id is taken. */
  private async flowTarget(
    req: FlowDeploymentRequest,
    holder: Deployment | undefined,
  ): Promise<{ id: string; kind: DeploymentKind; labels: Record<string, string>; reason?: string; replaces?: Deployment } | undefined> {
    const base: Record<string, string> = { ...(req.source ? { [Labels.source]: req.source } : {}), ...(req.templateId ? { [Labels.templateId]: req.templateId } : {}) };
    // An id is ours when free, or held by this flow's own auto-managed deployment.
    const ours = async (id: string) => {
      const d = await this.repo.get(id);
      return !d || d.managedFor === req.flowId;
    };
    let reason: string | undefined;
    if (req.route) {
      const route = normalizeRoute(req.route);
      const id = routeDeploymentId(route);
      const problem = routeProblem(route);
      const owner = problem ? undefined : await this.ownerOf(route);
      const claim = problem || owner ? undefined : await this.repo.claimOf(route);
      if (problem) reason = `meta.route is invalid: ${problem}`;
      else if (owner) reason = `route ${route.method} ${route.path} belongs to the ${owner} service`;
      else if (claim && claim.deploymentId !== id && claim.deploymentId !== holder?.id) reason = `route ${route.method} ${route.path} belongs to deployment ${claim.deploymentId}`;
      else {
        const labels = { ...base, [Labels.route]: routeLabel(route) };
        if (await ours(id)) return { id, kind: 'route', labels };
        const other = await this.repo.get(id);
        if (req.activation && other?.managedFor) return { id, kind: 'route', labels, replaces: other };
        reason = `deployment id ${id} is taken by another deployment`;
      }
    } else if (req.event) {
      const id = req.templateId ? subscriberDeploymentId(req.templateId) : flowSubscriberDeploymentId(req.flowId);
      const labels = { ...base, [Labels.event]: req.event.name, [Labels.kind]: 'subscriber', ...(req.event.filter ? { [Labels.eventFilter]: req.event.filter } : {}) };
      const problems = labelProblems(labels);
      if (problems.length) reason = `the event source cannot be subscribed: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`;
      else if (!(await ours(id))) reason = `deployment id ${id} is taken by another deployment`;
      else return { id, kind: 'subscriber', labels };
    }
    const id = invokeDeploymentId(req.flowId);
    if (!(await ours(id))) return undefined;
    return { id, kind: 'invoke', labels: { ...base, [Labels.kind]: 'invoke' }, reason };
  }

  /**
   * Deployments a draft absorbs: the auto-managed deployment of each flow it names. Any other
   * deployment naming one of its flows is a 409 naming that deployment.
   */
  private async absorbed(d: Deployment): Promise<Deployment[]> {
    const flows = flowsOf(d);
    const out = new Map<string, Deployment>();
    for (const flowId of flows) {
      const holderId = await this.repo.flowClaimOf(flowId);
      if (!holderId || holderId === d.id || out.has(holderId)) continue;
      const holder = await this.repo.get(holderId);
      if (!holder) continue;
      if (!holder.managedFor || !flows.includes(holder.managedFor)) throw flowConflict(flowId, holder);
      out.set(holder.id, holder);
    }
    return [...out.values()];
  }

  /** The service owning a route's path (a route deployment could never be reached there), or undefined. */
  private async ownerOf(route: RouteSpec): Promise<string | undefined> {
    const reserved = reservedApiPathOwner(route.path);
    if (reserved) return reserved;
    const owned = await this.flows.ownedRoutes();
    return owned.some((o) => overlaps(route, o)) ? 'flow-runtime' : undefined;
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
      if (d.kind === 'invoke') return; // binds nothing, so describes nothing
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
        // Checked by labelProblems before any flow was read.
        route = parseRouteLabel(label)!;
      } else {
        route = metaRouteOf(stableDoc?.document);
        if (!route) throw invalidDeployment([{ field: `labels.${Labels.route}`, problem: 'a route deployment needs an x-route label or a stable flow whose published version declares meta.route' }]);
        const problem = routeProblem(route);
        if (problem) throw invalidDeployment([{ field: 'variants', problem: `the stable flow's meta.route is invalid: ${problem}` }]);
      }
      const owner = await this.ownerOf(route);
      if (owner) throw routeOwned(route, owner);
      return { ...d, route };
    }
    if (d.kind === 'invoke') return { ...d, route: undefined };
    if (!subscribedEventOf(d.labels, stableDoc?.document)) {
      throw invalidDeployment([{ field: `labels.${Labels.event}`, problem: 'a subscriber deployment needs an x-event label or a stable flow starting with svc/event-source' }]);
    }
    return { ...d, route: undefined };
  }

  /**
   * One transaction: the absorbed deployments deleted, the write, the route claim (rule 15), the
   * flow claims (rule 5), and the `deployments.changed` events.
   */
  private async write(d: Deployment, action: DeploymentChangeAction, changed: string[] | undefined, persist: (s: StoreSession) => Promise<void>, previous?: Deployment, absorbed: Deployment[] = []): Promise<void> {
    const moved = !previous || (previous.route ? routeKey(previous.route) : '') !== (d.route ? routeKey(d.route) : '');
    const flows = flowsOf(d);
    const reflowed = !previous || JSON.stringify(flowsOf(previous)) !== JSON.stringify(flows);
    try {
      await this.outbox.withTransaction(async (session) => {
        for (const a of absorbed) await this.remove(a, session);
        await persist(session);
        if (moved) {
          if (previous) await this.repo.releaseClaims(d.id, session);
          if (d.route) await this.repo.claim(d.route, d.id, session);
        }
        if (reflowed) {
          if (previous) await this.repo.releaseFlowClaims(d.id, session);
          await this.repo.claimFlows(flows, d.id, session);
        }
        await this.announce(session, d, action, changed);
      });
    } catch (e) {
      if (e instanceof DuplicateKeyError) {
        // Someone claimed the route or one of the flows between our check and the write.
        if (d.route) await this.checkRoute(d.route, d.id);
        await this.absorbed(d);
      }
      throw e;
    }
    for (const a of absorbed) this.selectors.delete(a.id);
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

/**
 * The labels of an auto-managed deployment after a re-publish: labels publish does not manage stay
 * as they are; a managed label (`x-event-filter`, `x-route`, ...) follows the flow document unless
 * an operator changed, added or removed it since the last publish, in which case theirs stays.
 * Deployments stored before publish remembered what it wrote keep a managed label the document no
 * longer declares.
 */
function refreshedLabels(holder: Deployment, declared: Record<string, string>): Record<string, string> {
  const labels = { ...holder.labels };
  const last = holder.managed?.labels;
  for (const key of MANAGED_LABELS) {
    const operatorSet = last ? holder.labels[key] !== last[key] : holder.labels[key] !== undefined && declared[key] === undefined;
    if (operatorSet) continue;
    if (declared[key] !== undefined) labels[key] = declared[key];
    else delete labels[key];
  }
  return labels;
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

/**
 * Whether a deployment's route and a route flow-runtime answers itself can match one request: same
 * method (or the owner answers every method), same number of segments, and each pair of segments
 * equal or one of them a parameter.
 */
export function overlaps(route: RouteSpec, owned: OwnedRoute): boolean {
  if (owned.method !== 'ALL' && owned.method.toUpperCase() !== route.method.toUpperCase()) return false;
  const a = route.path.split('/').filter((s) => s !== '');
  const b = owned.path.split('/').filter((s) => s !== '');
  if (a.length !== b.length) return false;
  const param = (s: string) => s.startsWith('{') || s.startsWith(':');
  return a.every((s, i) => param(s) || param(b[i]) || s === b[i]);
}
