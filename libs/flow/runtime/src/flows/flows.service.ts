import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type FlowsPublishedPayload, Topics } from '@flowplane/contracts';
import { canonicalHash, type FlowDocument, type SpecDocument, specToIr, validateFlowDocument, validateSpecDocument } from '@flowplane/flow/ir';
import type { Outbox } from '@flowplane/platform/bus';
import { DomainException } from '@flowplane/platform/http';
import { DuplicateKeyError } from '@flowplane/platform/store';
import { type Flow, FLOW_ID, type FlowVersion, type PublishRecord, type PublishTarget, RESERVED_FLOW_IDS, versionsOf } from './flow.entities';
import { FlowRepository } from './flow.repository';
import { NODE_CATALOG, type NodeCatalog } from './node-catalog';

/** Nest token of the flows feature's outbox. */
export const FLOWS_OUTBOX = Symbol('FLOWS_OUTBOX');

/** Error codes of the flow routes. */
export enum FlowsExceptionCode {
  FLOW_NOT_FOUND = 'FLOW_NOT_FOUND',
  VERSION_NOT_FOUND = 'VERSION_NOT_FOUND',
  FLOW_EXISTS = 'FLOW_EXISTS',
  FLOW_PUBLISHED = 'FLOW_PUBLISHED',
  INVALID_DOCUMENT = 'INVALID_DOCUMENT',
  BROKEN_NODES = 'BROKEN_NODES',
  INVALID_ID = 'INVALID_ID',
  NOTHING_TO_ROLL_BACK = 'NOTHING_TO_ROLL_BACK',
}

/** Who is acting: the token subject, and the module when a service token acts. */
export interface Actor {
  sub: string;
  module?: string;
}

/** Flows, versions, publish and rollback (issue 4 item 7). */
@Injectable()
export class FlowsService {
  constructor(
    private readonly repo: FlowRepository,
    @Inject(FLOWS_OUTBOX) private readonly outbox: Outbox,
    @Inject(NODE_CATALOG) private readonly nodes: NodeCatalog,
  ) {}

  async create(input: { id?: string; name: string; description?: string }, actor: Actor): Promise<Flow> {
    const id = input.id ?? `${slug(input.name)}-${randomUUID().slice(0, 8)}`;
    if (!FLOW_ID.test(id) || RESERVED_FLOW_IDS.has(id)) {
      throw new DomainException(FlowsExceptionCode.INVALID_ID, 400, `invalid flow id ${JSON.stringify(id)}: lowercase letters, digits, dots, dashes, underscores; not ${[...RESERVED_FLOW_IDS].join(', ')}`);
    }
    const flow: Flow = { id, name: input.name, description: input.description, createdAt: new Date(), createdBy: actor.sub };
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

  async delete(id: string): Promise<void> {
    const f = await this.get(id);
    if (f.published) throw new DomainException(FlowsExceptionCode.FLOW_PUBLISHED, 409, `flow ${id} is published; unpublish it before deleting`);
    await this.repo.deleteFlow(id);
  }

  /**
   * Saves a version from a parsed document (IR or spec form). Versions are immutable; a document
   * identical to a saved one returns that version.
   */
  async saveVersion(flowId: string, body: unknown, format: 'ir' | 'spec', actor: Actor, limits: { maxNodes?: number } = {}): Promise<{ version: FlowVersion; created: boolean }> {
    await this.get(flowId);
    let doc: FlowDocument;
    if (format === 'spec') {
      const spec = validateSpecDocument(body);
      if (!spec.ok) throw invalid(spec.errors);
      doc = specToIr(body as SpecDocument);
    } else {
      doc = body as FlowDocument;
    }
    const result = validateFlowDocument(doc, { maxNodes: limits.maxNodes });
    if (!result.ok) throw invalid(result.errors);
    const document = result.document ?? doc;
    const hash = canonicalHash(document);
    const existing = await this.repo.versionByHash(flowId, hash);
    if (existing) return { version: existing, created: false };
    for (let attempt = 0; attempt < 5; attempt++) {
      const number = (await this.repo.lastVersionNumber(flowId)) + 1;
      const version: FlowVersion = { versionId: `${flowId}@v${number}`, flowId, number, hash, document, warnings: result.warnings, createdAt: new Date(), createdBy: actor.sub, module: actor.module };
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
  async publish(flowId: string, target: PublishTarget, actor: Actor, reason: PublishRecord['reason'] = 'publish'): Promise<PublishRecord> {
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
    const previous = flow.published && 'versionId' in flow.published ? flow.published.versionId : undefined;
    return this.outbox.withTransaction(async (session) => {
      const seq = (await this.repo.lastPublishSeq(flowId, session)) + 1;
      const rec: PublishRecord = { flowId, seq, target, reason, publishedAt: new Date(), publishedBy: actor.sub };
      await this.repo.recordPublish(rec, session);
      const payload: FlowsPublishedPayload = {
        flowId,
        versionId: 'versionId' in target ? target.versionId : target.variants.reduce((a, b) => (b.weight > a.weight ? b : a)).versionId,
        publishedAt: rec.publishedAt.toISOString(),
        previousVersionId: previous,
        reason,
        variants: 'variants' in target ? target.variants.map((v) => ({ label: v.label, versionId: v.versionId, weight: v.weight })) : undefined,
      };
      await this.outbox.enqueue(session, Topics.FlowsPublished, payload, { key: flowId, entitytype: 'flow', action: 'published' });
      return rec;
    });
  }

  /** Publishes an earlier target again (default: the one before the current), appending to the history. */
  async rollback(flowId: string, versionId: string | undefined, actor: Actor): Promise<PublishRecord> {
    const history = await this.listPublishes(flowId);
    let target: PublishTarget | undefined;
    if (versionId) target = { versionId };
    else target = history[1]?.target;
    if (!target) throw new DomainException(FlowsExceptionCode.NOTHING_TO_ROLL_BACK, 409, `flow ${flowId} has no earlier publish to roll back to`);
    return this.publish(flowId, target, actor, 'rollback');
  }
}

function invalid(errors: Array<{ path: string; message: string; code: string }>): DomainException {
  return new DomainException(FlowsExceptionCode.INVALID_DOCUMENT, 400, `invalid flow document: ${errors.length} problem${errors.length === 1 ? '' : 's'}`, {
    details: errors.map((e) => ({ field: e.path || '/', problems: [e.message], code: e.code })),
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
