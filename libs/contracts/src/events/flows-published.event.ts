import { Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsRFC3339,
  IsString,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/** What moved a flow's publish pointer. */
export const FLOW_PUBLISH_REASONS = ['publish', 'rollback', 'reset', 'auto_upgrade', 'unpublish'] as const;
/** A publish reason. */
export type FlowPublishReason = (typeof FLOW_PUBLISH_REASONS)[number];

/** How a published flow is entered; deployments derives the auto-managed deployment from it (rule 11). */
export const FLOW_ENTRY_KINDS = ['route', 'event', 'none'] as const;
/** A flow entry kind. */
export type FlowEntryKind = (typeof FLOW_ENTRY_KINDS)[number];

/** One version of a weighted split inside one flow (POST /flows/{id}/publish with variants). */
export class FlowPublishedVariant {
  @IsString()
  @IsNotEmpty()
  label!: string;

  @IsString()
  @IsNotEmpty()
  versionId!: string;

  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  weight!: number;
}

/** The entry point of the published version: an HTTP route or a bus subscription. */
export class FlowEntryPoint {
  @IsIn(FLOW_ENTRY_KINDS)
  kind!: FlowEntryKind;

  /** HTTP method, for `route`. */
  @IsOptional()
  @IsString()
  method?: string;

  /** HTTP path, for `route`. */
  @IsOptional()
  @IsString()
  path?: string;

  /** Topic of the event-source node, for `event`. */
  @IsOptional()
  @IsString()
  eventName?: string;

  /** Optional filter expression on the event, for `event`. */
  @IsOptional()
  @IsString()
  eventFilter?: string;

  /** Consumer group id of the event-source node, for `event`. */
  @IsOptional()
  @IsString()
  groupId?: string;
}

/**
 * Payload of `flows.published` (our own topic): a flow's publish pointer moved. Consumers: deployments
 * (auto-managed subscriber deployments, stable variant refresh), the assistant (capabilities, config),
 * the gateway (OpenAPI and AsyncAPI caches).
 */
export class FlowsPublishedPayload {
  @IsString()
  @IsNotEmpty()
  flowId!: string;

  /**
   * The version the publish pointer now designates (the heaviest variant of a split). Absent only
   * when `reason` is `unpublish`: the flow has no published version any more.
   */
  @ValidateIf((o: FlowsPublishedPayload) => o.reason !== 'unpublish' || o.versionId !== undefined)
  @IsString()
  @IsNotEmpty()
  versionId?: string;

  @IsOptional()
  @IsString()
  previousVersionId?: string;

  @IsRFC3339()
  publishedAt!: string;

  @IsOptional()
  @IsIn(FLOW_PUBLISH_REASONS)
  reason?: FlowPublishReason;

  /** Template the flow was created from, `<module>/<slug>`. */
  @IsOptional()
  @IsString()
  templateId?: string;

  /** Set when the publish was a weighted split within the flow. */
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FlowPublishedVariant)
  variants?: FlowPublishedVariant[];

  @IsOptional()
  @ValidateNested()
  @Type(() => FlowEntryPoint)
  entry?: FlowEntryPoint;
}
