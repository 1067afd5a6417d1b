import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { FlowDocument, ValidationIssue } from '@flowplane/flow/ir';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument, StoreSession, Update } from '@flowplane/platform/store';
import type { Flow, FlowVersion, PublishReason, PublishRecord, PublishTarget } from './flow.entities';

interface FlowDoc extends StoreDocument {
  name: string;
  description?: string;
  createdAt: Date;
  createdBy: string;
  templateId?: string;
  publishedJson?: string;
  publishedAt?: Date;
}

interface VersionDoc extends StoreDocument {
  flowId: string;
  number: number;
  hash: string;
  documentJson: string;
  warningsJson: string;
  createdAt: Date;
  createdBy: string;
  module?: string;
}

interface PublishDoc extends StoreDocument {
  flowId: string;
  seq: number;
  targetJson: string;
  reason: PublishReason;
  publishedAt: Date;
  publishedBy: string;
}

const toFlow = (d: FlowDoc): Flow => ({
  id: d._id,
  name: d.name,
  description: d.description,
  createdAt: d.createdAt,
  createdBy: d.createdBy,
  templateId: d.templateId,
  published: d.publishedJson ? (JSON.parse(d.publishedJson) as PublishTarget) : undefined,
  publishedAt: d.publishedAt,
});

const toVersion = (d: VersionDoc): FlowVersion => ({
  versionId: d._id,
  flowId: d.flowId,
  number: d.number,
  hash: d.hash,
  document: JSON.parse(d.documentJson) as FlowDocument,
  warnings: JSON.parse(d.warningsJson) as ValidationIssue[],
  createdAt: d.createdAt,
  createdBy: d.createdBy,
  module: d.module,
});

const toPublish = (d: PublishDoc): PublishRecord => ({
  flowId: d.flowId,
  seq: d.seq,
  target: JSON.parse(d.targetJson) as PublishTarget | null,
  reason: d.reason,
  publishedAt: d.publishedAt,
  publishedBy: d.publishedBy,
});

/**
 * Flows, their immutable versions and the publish history. Documents are stored as JSON text so any
 * config key (including `$` or `.`) survives both store engines unchanged.
 */
@Injectable()
export class FlowRepository implements OnModuleInit {
  private readonly flows: Collection<FlowDoc>;
  private readonly versions: Collection<VersionDoc>;
  private readonly publishes: Collection<PublishDoc>;

  constructor(@Inject(STORE) store: Store) {
    this.flows = store.collection<FlowDoc>('flows');
    this.versions = store.collection<VersionDoc>('flow_versions');
    this.publishes = store.collection<PublishDoc>('flow_publishes');
  }

  async onModuleInit(): Promise<void> {
    await this.versions.createIndex({ keys: { flowId: 1, number: 1 }, unique: true, name: 'flow_number' });
    await this.versions.createIndex({ keys: { flowId: 1, hash: 1 }, name: 'flow_hash' });
    await this.publishes.createIndex({ keys: { flowId: 1, seq: 1 }, unique: true, name: 'flow_seq' });
  }

  async insertFlow(f: Flow): Promise<void> {
    await this.flows.insertOne({ _id: f.id, name: f.name, description: f.description, createdAt: f.createdAt, createdBy: f.createdBy, ...(f.templateId ? { templateId: f.templateId } : {}) });
  }

  async getFlow(id: string, session?: StoreSession): Promise<Flow | undefined> {
    const d = await this.flows.findOne({ _id: id }, { session });
    return d ? toFlow(d) : undefined;
  }

  async listFlows(): Promise<Flow[]> {
    return (await this.flows.find({}, { sort: { createdAt: -1 } })).map(toFlow);
  }

  /** Deletes a flow with its versions and history. */
  async deleteFlow(id: string): Promise<void> {
    await this.versions.deleteMany({ flowId: id });
    await this.publishes.deleteMany({ flowId: id });
    await this.flows.deleteOne({ _id: id });
  }

  async versionByHash(flowId: string, hash: string): Promise<FlowVersion | undefined> {
    const d = await this.versions.findOne({ flowId, hash });
    return d ? toVersion(d) : undefined;
  }

  async lastVersionNumber(flowId: string): Promise<number> {
    const [last] = await this.versions.find({ flowId }, { sort: { number: -1 }, limit: 1, projection: { number: 1 } });
    return last?.number ?? 0;
  }

  /** Inserts a version; a concurrent save of the same number raises DuplicateKeyError (the caller retries). */
  async insertVersion(v: FlowVersion): Promise<void> {
    await this.versions.insertOne({
      _id: v.versionId,
      flowId: v.flowId,
      number: v.number,
      hash: v.hash,
      documentJson: JSON.stringify(v.document),
      warningsJson: JSON.stringify(v.warnings),
      createdAt: v.createdAt,
      createdBy: v.createdBy,
      module: v.module,
    });
  }

  async getVersion(flowId: string, versionId: string): Promise<FlowVersion | undefined> {
    const d = await this.versions.findOne({ _id: versionId, flowId });
    return d ? toVersion(d) : undefined;
  }

  async listVersions(flowId: string): Promise<FlowVersion[]> {
    return (await this.versions.find({ flowId }, { sort: { number: -1 } })).map(toVersion);
  }

  async listPublishes(flowId: string): Promise<PublishRecord[]> {
    return (await this.publishes.find({ flowId }, { sort: { seq: -1 } })).map(toPublish);
  }

  /** Moves the publish pointer and appends to the history in one transaction. */
  async recordPublish(rec: PublishRecord, session: StoreSession): Promise<void> {
    await this.publishes.insertOne({ _id: `${rec.flowId}:${rec.seq}`, flowId: rec.flowId, seq: rec.seq, targetJson: JSON.stringify(rec.target), reason: rec.reason, publishedAt: rec.publishedAt, publishedBy: rec.publishedBy }, { session });
    const update: Update = rec.target
      ? { $set: { publishedJson: JSON.stringify(rec.target), publishedAt: rec.publishedAt } }
      : { $unset: { publishedJson: '', publishedAt: '' } };
    await this.flows.updateOne({ _id: rec.flowId }, update, { session });
  }

  async lastPublishSeq(flowId: string, session?: StoreSession): Promise<number> {
    const [last] = await this.publishes.find({ flowId }, { sort: { seq: -1 }, limit: 1, session });
    return last?.seq ?? 0;
  }
}
