import type { FlowDocument, ValidationIssue } from '@flowplane/flow/ir';

/** Flow ids share the /flows/ path with fixed sub-resources; these never name a flow. */
export const RESERVED_FLOW_IDS = new Set(['schedules', 'templates', 'nodes', 'subscriptions', 'compile', 'validate', 'tools']);
export const FLOW_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;

export interface Flow {
  id: string;
  name: string;
  description?: string;
  createdAt: Date;
  createdBy: string;
  /** The template the flow was activated from (`<module>/<slug>`). */
  templateId?: string;
  /** Current publish pointer (absent while unpublished). */
  published?: PublishTarget;
  publishedAt?: Date;
}

/** What a publish points at: one version, or a weighted split between versions. */
export type PublishTarget = { versionId: string } | { variants: PublishVariant[] };

export interface PublishVariant {
  label: string;
  versionId: string;
  /** Relative weight; zero is declared and never selected. */
  weight: number;
}

/** An immutable saved version of a flow. */
export interface FlowVersion {
  versionId: string;
  flowId: string;
  /** Sequence number within the flow (v1, v2, ...). */
  number: number;
  /** Canonical content hash: saving the same document again returns this version. */
  hash: string;
  document: FlowDocument;
  warnings: ValidationIssue[];
  createdAt: Date;
  createdBy: string;
  /** The module that owns the version when a module's service created it (auto-upgrade candidate). */
  module?: string;
}

/** Why the publish pointer moved. */
export type PublishReason = 'publish' | 'rollback' | 'unpublish' | 'auto_upgrade';

/** One entry of the publish history. */
export interface PublishRecord {
  flowId: string;
  seq: number;
  /** Null for an unpublish. */
  target: PublishTarget | null;
  reason: PublishReason;
  publishedAt: Date;
  publishedBy: string;
}

/** The version a publish target designates: the version, or the heaviest variant of a split. */
export function stableVersionOf(target: PublishTarget): string {
  return 'versionId' in target ? target.versionId : target.variants.reduce((a, b) => (b.weight > a.weight ? b : a)).versionId;
}

/** The versions a publish target names. */
export function versionsOf(target: PublishTarget): string[] {
  return 'versionId' in target ? [target.versionId] : target.variants.map((v) => v.versionId);
}
