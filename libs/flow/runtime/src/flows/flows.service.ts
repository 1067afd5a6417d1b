import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type FlowsPublishedPayload, ProfileResolver, Topics } from '@flowplane/contracts';
import { parseCondition } from '@flowplane/flow/conditions';
import { staticConfigProblems, storedTypeProblems } from '@flowplane/flow/engine';
import {
  canonicalHash,
  escapePointerToken,
  type FlowDocument,
  type FlowValidationOptions,
  type SpecDocument,
  specToIr,
  validateFlowDocument,
  validateSpecDocument,
  type ValidationIssue,
} from '@flowplane/flow/ir';
import type { Outbox } from '@flowplane/platform/bus';
import { DomainException } from '@flowplane/platform/http';
import { DuplicateKeyError } from '@flowplane/platform/store';
import { type Flow, FLOW_ID, type FlowVersion, type PublishReason, type PublishRecord, type PublishTarget, RESERVED_FLOW_IDS, stableVersionOf, versionsOf } from './flow.entities';
import { FlowRepository } from './flow.repository';
import { NODE_CATALOG, type NodeCatalog } from './node-catalog';
import { type NodeSecretProblem, NodeSecretsValidator } from './node-secrets.validator';

/** Nest token of the flows feature's outbox. */
export const FLOWS_OUTBOX = Symbol('FLOWS_OUTBOX');

/** Error codes of the flow routes. */
export enum FlowsExceptionCode {
  FLOW_NOT_FOUND = 'FLOW_NOT_FOUND',
  VERSION_NOT_FOUND = 'VERSION_NOT_FOUND',
  FLOW_EXISTS = 'FLOW_EXISTS',
  FLOW_PUBLISHED = 'FLOW_PUBLISHED',
  INVALID_DOCUMENT = 'INVALID_DOCUMENT',
  INVALID_NODE_CONFIG = 'INVALID_NODE_CONFIG',
  BROKEN_NODES = 'BROKEN_NODES',
  INVALID_ID = 'INVALID_ID',
  NOTHING_TO_ROLL_BACK = 'NOTHING_TO_ROLL_BACK',
}

/** Who is acting: the token subject, and the module when a service token acts. */
export interface Actor {
  sub: string;
  module?: string;
}

/** Longest a cached flow is used by the run hot path. */
export const FLOW_CACHE_MS = 2000;

/** What `seed` did. */
export interface SeedResult {
  flowId: string;
  action: 'created' | 'upgraded' | 'unchanged';
  versionId?: string;
  reason?: string;
}

/** Flows, versions, publish and rollback (issue 4 item 7). */
@Injectable()
export class FlowsService {
  private readonly cache = new Map<string, { at: number; flow: Flow }>();
  private readonly secrets: NodeSecretsValidator;
  private readonly publishedHooks: Array<(flowId: string) => Promise<void>> = [];

  constructor(
    private readonly repo: FlowRepository,
    @Inject(FLOWS_OUTBOX) private readonly outbox: Outbox,
    @Inject(NODE_CATALOG) private readonly nodes: NodeCatalog,
    @Optional() profiles?: ProfileResolver,
  ) {
    this.secrets = new NodeSecretsValidator(nodes, profiles);
  }

  async create(input: { id?: string; name: string; description?: string; templateId?: string }, actor: Actor): Promise<Flow> {
    const id = input.id ?? `${slug(input.name)}-${randomUUID().slice(0, 8)}`;
    if (!FLOW_ID.test(id) || RESERVED_FLOW_IDS.has(id)) {
      throw new DomainException(FlowsExceptionCode.INVALID_ID, 400, `invalid flow id ${JSON.stringify(id)}: lowercase letters, digits, dots, dashes, underscores; not ${[...RESERVED_FLOW_IDS].join(', ')}`);
    }
    const flow: Flow = { id, name: input.name, description: input.description, createdAt: new Date(), createdBy: actor.sub, ...(input.templateId ? { templateId: input.templateId } : {}) };
    try {
      await this.repo.insertFlow(flow);
    } catch (e) {
      if (e instanceof DuplicateKeyError) throw new DomainException(FlowsExceptionCode.FLOW_EXISTS, 409, `flow ${id} already exists`);
      throw e;
    }
    return flow;
  }

  list(): Promise<Flow[]> {
    return this.repo.listFlows();
  }

  async get(id: string): Promise<Flow> {
    const f = await this.repo.getFlow(id);
    if (!f) throw new DomainException(FlowsExceptionCode.FLOW_NOT_FOUND, 404, `no flow ${id}`);
    return f;
  }

  /**
   * The flow for the run hot path (which version runs): read at most FLOW_CACHE_MS ago. This
   * replica's own writes drop the entry at once, and every replica drops it on `flows.published`
   * (EventSourcesService calls `forget`), so a publish elsewhere shows within the event delay.
   */
  async getCached(id: string): Promise<Flow> {
    const hit = this.cache.get(id);
    if (hit && Date.now() - hit.at < FLOW_CACHE_MS) return hit.flow;
    const flow = await this.get(id);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(id, { at: Date.now(), flow });
    return flow;
  }

  /** Drops a cached flow (after a write, or a `flows.published` from another replica). */
  forget(id: string): void {
    this.cache.delete(id);
  }

  async delete(id: string): Promise<void> {
    const f = await this.get(id);
    if (f.published) throw new DomainException(FlowsExceptionCode.FLOW_PUBLISHED, 409, `flow ${id} is published; unpublish it before deleting`);
    await this.repo.deleteFlow(id);
    this.forget(id);
  }

  /**
   * Saves a version from a parsed document (IR or spec form). Versions are immutable; a document
   * identical to a saved one returns that version.
   */
  async saveVersion(flowId: string, body: unknown, format: 'ir' | 'spec', actor: Actor, limits: { maxNodes?: number } = {}): Promise<{ version: FlowVersion; created: boolean }> {
    await this.get(flowId);
    // Warnings (and errors) are addressed in the form the document was sent in.
    const options = this.validationOptions(limits.maxNodes);
    let document: FlowDocument;
    let warnings: ValidationIssue[];
    if (format === 'spec') {
      const spec = validateSpecDocument(body, options);
      if (!spec.ok) throw invalid(spec.errors);
      document = spec.ir ?? specToIr(body as SpecDocument);
      warnings = spec.warnings;
    } else {
      const result = validateFlowDocument(body, options);
      if (!result.ok) throw invalid(result.errors);
      document = result.document ?? (body as FlowDocument);
      warnings = result.warnings;
    }
    const secretProblems = await this.secrets.check(document);
    if (secretProblems.length) {
      throw secretsRefused(secretProblems, (p) => `/nodes/${p.index}/config/${escapePointerToken(p.key)}`);
    }
    const hash = canonicalHash(document);
    const existing = await this.repo.versionByHash(flowId, hash);
    if (existing) return { version: existing, created: false };
    for (let attempt = 0; attempt < 5; attempt++) {
      const number = (await this.repo.lastVersionNumber(flowId)) + 1;
      const version: FlowVersion = { versionId: `${flowId}@v${number}`, flowId, number, hash, document, warnings, createdAt: new Date(), createdBy: actor.sub, module: actor.module };
      try {
        await this.repo.insertVersion(version);
        return { version, created: true };
      } catch (e) {
        if (!(e instanceof DuplicateKeyError)) throw e;
        const raced = await this.repo.versionByHash(flowId, hash);
        if (raced) return { version: raced, created: false };
      }
    }
    throw new DomainException('VERSION_CONFLICT', 409, 'too many concurrent saves of this flow; retry');
  }

  /**
   * What a saved version is checked against beyond its shape: each node's settings schema (errors),
   * edge conditions that do not parse, config keys the engine drops, edge packets that disagree
   * with the ports they connect, action refs no node is registered for (warnings: publish refuses them).
   */
  private validationOptions(maxNodes?: number): FlowValidationOptions {
    return {
      maxNodes,
      knownActionRefs: (ref) => this.nodes.has(ref),
      unknownActionRefSeverity: 'warning',
      conditionError: conditionParseError,
      nodeSettingsSchema: (ref) => this.nodes.get(ref)?.manifest.settingsSchema,
      nodeConfigProblems: (node) => {
        const schema = this.nodes.get(node.action_ref)?.manifest.settingsSchema;
        return [...storedTypeProblems(schema, node.config), ...staticConfigProblems(schema, node.config)];
      },
      nodePorts: (ref) => this.nodes.get(ref)?.manifest,
    };
  }

  /** Settings problems of every node of the given versions (publish checks versions saved before a node's schema changed). */
  private async configProblems(flowId: string, versionIds: string[]): Promise<Array<{ versionId: string; nodeId: string; index: number; path: string; message: string }>> {
    const out: Array<{ versionId: string; nodeId: string; index: number; path: string; message: string }> = [];
    for (const versionId of versionIds) {
      const v = await this.getVersion(flowId, versionId);
      v.document.nodes.forEach((n, index) => {
        if (!n.action_ref) return;
        for (const p of staticConfigProblems(this.nodes.get(n.action_ref)?.manifest.settingsSchema, n.config)) {
          out.push({ versionId, nodeId: n.id, index, path: p.path, message: `node "${n.id}" (${n.action_ref}): ${p.key ? `${p.key} ` : ''}${p.message}` });
        }
      });
    }
    return out;
  }

  async getVersion(flowId: string, versionId: string): Promise<FlowVersion> {
    await this.get(flowId);
    const v = await this.repo.getVersion(flowId, versionId);
    if (!v) throw new DomainException(FlowsExceptionCode.VERSION_NOT_FOUND, 404, `flow ${flowId} has no version ${versionId}`);
    return v;
  }

  async listVersions(flowId: string): Promise<FlowVersion[]> {
    await this.get(flowId);
    return this.repo.listVersions(flowId);
  }

  async listPublishes(flowId: string): Promise<PublishRecord[]> {
    await this.get(flowId);
    return this.repo.listPublishes(flowId);
  }

  /** Moves the publish pointer to a version or a weighted split; refuses versions with unknown nodes. */
  async publish(flowId: string, target: PublishTarget, actor: Actor, reason: Exclude<PublishReason, 'unpublish'> = 'publish'): Promise<PublishRecord> {
    const flow = await this.get(flowId);
    const broken: Array<{ versionId: string; nodeId: string; actionRef: string }> = [];
    for (const versionId of versionsOf(target)) {
      const v = await this.getVersion(flowId, versionId);
      for (const n of v.document.nodes) if (n.action_ref && !this.nodes.has(n.action_ref)) broken.push({ versionId, nodeId: n.id, actionRef: n.action_ref });
    }
    if (broken.length) {
      throw new DomainException(FlowsExceptionCode.BROKEN_NODES, 400, `unknown nodes: ${broken.map((b) => `${b.nodeId} (${b.actionRef})`).join(', ')}`, {
        details: broken.map((b) => ({ field: `${b.versionId}.nodes.${b.nodeId}.action_ref`, problems: [`no registered node ${b.actionRef}`] })),
      });
    }
    // Versions saved before a node's settings schema changed (a remote node registered again).
    const misconfigured = await this.configProblems(flowId, versionsOf(target));
    if (misconfigured.length) {
      throw new DomainException(FlowsExceptionCode.INVALID_NODE_CONFIG, 400, `invalid node config: ${misconfigured[0].message}${misconfigured.length > 1 ? ` (and ${misconfigured.length - 1} more)` : ''}`, {
        details: misconfigured.map((p) => ({ field: `${p.versionId}#/nodes/${p.index}/config${p.path}`, problems: [p.message], code: FlowsExceptionCode.INVALID_NODE_CONFIG })),
      });
    }
    // Versions saved before a check existed, or before the selected profile gained a secret.
    const refused: Array<NodeSecretProblem & { versionId: string }> = [];
    for (const versionId of versionsOf(target)) {
      const v = await this.getVersion(flowId, versionId);
      for (const p of await this.secrets.check(v.document)) refused.push({ ...p, versionId });
    }
    if (refused.length) throw secretsRefused(refused, (p) => `${p.versionId}.nodes.${p.nodeId}.config.${p.key}`);
    const previous = flow.published && 'versionId' in flow.published ? flow.published.versionId : undefined;
    this.forget(flowId);
    const record = await this.outbox.withTransaction(async (session) => {
      const seq = (await this.repo.lastPublishSeq(flowId, session)) + 1;
      const rec: PublishRecord = { flowId, seq, target, reason, publishedAt: new Date(), publishedBy: actor.sub };
      await this.repo.recordPublish(rec, session);
      const payload: FlowsPublishedPayload = {
        flowId,
        versionId: stableVersionOf(target),
        publishedAt: rec.publishedAt.toISOString(),
        previousVersionId: previous,
        reason,
        templateId: flow.templateId,
        variants: 'variants' in target ? target.variants.map((v) => ({ label: v.label, versionId: v.versionId, weight: v.weight })) : undefined,
      };
      await this.outbox.enqueue(session, Topics.FlowsPublished, payload, { key: flowId, entitytype: 'flow', action: 'published' });
      return rec;
    }).finally(() => this.forget(flowId));
    // Every published flow has its deployment (rule 5) by the time the publish answers.
    for (const hook of this.publishedHooks) await hook(flowId);
    return record;
  }

  /** Runs after every publish commits; a hook handles its own failures (the publish has happened). */
  onPublished(hook: (flowId: string) => Promise<void>): void {
    this.publishedHooks.push(hook);
  }

  /**
   * Takes the flow off the air: no version is published (runs without versionId get 409, event
   * sources unsubscribe, deployments drop it), recorded in the history; rollback restores it.
   */
  async unpublish(flowId: string, actor: Actor): Promise<PublishRecord> {
    const flow = await this.get(flowId);
    if (!flow.published) throw new DomainException('FLOW_NOT_PUBLISHED', 409, `flow ${flowId} is not published`);
    const previous = stableVersionOf(flow.published);
    return this.outbox.withTransaction(async (session) => {
      const seq = (await this.repo.lastPublishSeq(flowId, session)) + 1;
      const rec: PublishRecord = { flowId, seq, target: null, reason: 'unpublish', publishedAt: new Date(), publishedBy: actor.sub };
      await this.repo.recordPublish(rec, session);
      const payload: FlowsPublishedPayload = { flowId, previousVersionId: previous, publishedAt: rec.publishedAt.toISOString(), reason: 'unpublish' };
      await this.outbox.enqueue(session, Topics.FlowsPublished, payload, { key: flowId, entitytype: 'flow', action: 'published' });
      return rec;
    }).finally(() => this.forget(flowId));
  }

  /**
   * A module seeds the flow it owns (issue 4 item 7): created, saved and published on first sight;
   * later auto-upgraded, but only when the published version was created by that same module and
   * the document's `meta.schemaVersion` is higher than the published one's. Versions anyone else
   * created (an admin's edit), splits and flows an admin unpublished are left alone.
   */
  async seed(flowId: string, input: { name: string; description?: string; document: unknown }, actor: Actor): Promise<SeedResult> {
    if (!actor.module) throw new DomainException('NOT_A_MODULE', 403, 'only a module (service token) may seed flows');
    const existing = await this.repo.getFlow(flowId);
    if (!existing) {
      try {
        await this.create({ id: flowId, name: input.name, description: input.description }, actor);
      } catch (e) {
        if (!(e instanceof DomainException && e.status === 409)) throw e; // a concurrent seed won
      }
      const { version } = await this.saveVersion(flowId, input.document, 'ir', actor);
      await this.publish(flowId, { versionId: version.versionId }, actor);
      return { flowId, action: 'created', versionId: version.versionId };
    }
    if (!existing.published) {
      // A first seed that stopped between creating the flow and publishing it (its document was
      // refused, say a node not registered yet, or the process stopped) has never been published:
      // finish it. A flow an admin unpublished has a history and stays off the air.
      if ((await this.repo.listPublishes(flowId)).length === 0 && existing.createdBy === actor.sub) {
        const { version } = await this.saveVersion(flowId, input.document, 'ir', actor);
        await this.publish(flowId, { versionId: version.versionId }, actor);
        return { flowId, action: 'created', versionId: version.versionId };
      }
      return { flowId, action: 'unchanged', reason: 'the flow is not published (an admin took it off the air)' };
    }
    if (!('versionId' in existing.published)) return { flowId, action: 'unchanged', reason: 'the flow is published as a split; splits are never auto-upgraded' };
    const current = await this.getVersion(flowId, existing.published.versionId);
    if (current.module !== actor.module) {
      return { flowId, action: 'unchanged', versionId: current.versionId, reason: `the published version was created by ${current.createdBy}, not by module ${actor.module}` };
    }
    const have = schemaVersionOf(current.document);
    const offered = schemaVersionOf(input.document);
    if (!(offered > have)) return { flowId, action: 'unchanged', versionId: current.versionId, reason: `schemaVersion ${offered} is not above the published ${have}` };
    const { version } = await this.saveVersion(flowId, input.document, 'ir', actor);
    await this.publish(flowId, { versionId: version.versionId }, actor, 'auto_upgrade');
    return { flowId, action: 'upgraded', versionId: version.versionId };
  }

  /** Publishes an earlier target again (default: the one before the current), appending to the history. */
  async rollback(flowId: string, versionId: string | undefined, actor: Actor): Promise<PublishRecord> {
    const history = await this.listPublishes(flowId);
    let target: PublishTarget | undefined;
    if (versionId) target = { versionId };
    // The previous publish: after an unpublish, the version it took off the air.
    else target = history.slice(1).find((h) => h.target !== null)?.target ?? undefined;
    if (!target) throw new DomainException(FlowsExceptionCode.NOTHING_TO_ROLL_BACK, 409, `flow ${flowId} has no earlier publish to roll back to`);
    return this.publish(flowId, target, actor, 'rollback');
  }
}

/** Why an edge condition does not parse; blank and `true` are default edges, not conditions. */
function conditionParseError(source: string): string | undefined {
  if (source.trim() === '' || source.trim() === 'true') return undefined;
  const parsed = parseCondition(source);
  return parsed.ok ? undefined : parsed.error.message;
}

function schemaVersionOf(doc: unknown): number {
  const meta = (doc as { meta?: { schemaVersion?: unknown } } | null)?.meta;
  return typeof meta?.schemaVersion === 'number' ? meta.schemaVersion : 0;
}

/** 400 listing every problem with its JSON path; INVALID_NODE_CONFIG when all of them are node settings. */
function invalid(errors: Array<{ path: string; message: string; code: string }>): DomainException {
  const settingsOnly = errors.every((e) => e.code === FlowsExceptionCode.INVALID_NODE_CONFIG);
  const code = settingsOnly ? FlowsExceptionCode.INVALID_NODE_CONFIG : FlowsExceptionCode.INVALID_DOCUMENT;
  const summary = settingsOnly ? `invalid node config: ${errors[0].message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}` : `invalid flow document: ${errors.length} problem${errors.length === 1 ? '' : 's'}`;
  return new DomainException(code, 400, summary, {
    details: errors.map((e) => ({ field: e.path || '/', problems: [e.message], code: e.code })),
  });
}

/**
 * 400 for node configs that would expose a secret. The code is the problems' own when they share
 * one (PROFILE_ENDPOINT_OVERRIDE, SECRET_IN_NODE_CONFIG, CREDENTIALS_IN_URL), else INVALID_DOCUMENT;
 * each detail names the node and the config key.
 */
function secretsRefused<P extends NodeSecretProblem>(problems: P[], field: (p: P) => string): DomainException {
  const codes = new Set(problems.map((p) => p.code));
  const code = codes.size === 1 ? problems[0].code : FlowsExceptionCode.INVALID_DOCUMENT;
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'})` : '';
  return new DomainException(code, 400, `node ${JSON.stringify(first.nodeId)} config.${first.key}: ${first.message}${more}`, {
    details: problems.map((p) => ({ field: field(p), problems: [`node ${JSON.stringify(p.nodeId)}: ${p.message}`], code: p.code })),
  });
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'flow'
  );
}
