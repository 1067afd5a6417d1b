import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { NODE_KINDS } from '@flowplane/flow/ir';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

/** A remote node id: one optional `<namespace>/` then a name (`assistant/summarize`, `crm.lookup`). */
export const REMOTE_NODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,99})?$/;
/** A port name (`out`, `Sent`, `Error`). */
export const PORT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Longest per-step timeout a registration may ask for (10 minutes). */
export const MAX_REMOTE_TIMEOUT_MS = 600_000;

/** One port of a registered manifest. */
export class RemoteNodePortDto {
  @ApiProperty({ example: 'out' })
  @IsString()
  @Matches(PORT_NAME, { message: 'port must be 1-64 letters, digits, "_", "." or "-", starting with a letter or digit' })
  port!: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'JSON Schema of the packet on this port.' })
  @IsOptional()
  @IsObject()
  schema?: Record<string, unknown>;

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2000) description?: string;
}

/** The manifest of a remote node (the engine's `NodeManifest`). */
export class RemoteNodeManifestDto {
  @ApiProperty({ example: 'crm/lookup-customer', description: 'Must equal the id in the path.' })
  @IsString()
  @Matches(REMOTE_NODE_ID, { message: 'id must be a name or <namespace>/<name> of letters, digits, ".", "_" or "-"' })
  id!: string;

  @ApiProperty({ example: 'Look up customer' }) @IsString() @MinLength(1) @MaxLength(200) name!: string;

  @ApiProperty({ enum: NODE_KINDS })
  @IsIn([...NODE_KINDS], { message: `kind must be one of ${NODE_KINDS.join(', ')}` })
  kind!: (typeof NODE_KINDS)[number];

  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(4000) description?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'JSON Schema (type object) of the node config.' })
  @IsOptional()
  @IsObject()
  settingsSchema?: Record<string, unknown>;

  @ApiProperty({ type: [RemoteNodePortDto] })
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => RemoteNodePortDto)
  inputs!: RemoteNodePortDto[];

  @ApiProperty({ type: [RemoteNodePortDto] })
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => RemoteNodePortDto)
  outputs!: RemoteNodePortDto[];

  @ApiPropertyOptional({ description: 'Per-step timeout in ms (the body-level timeoutMs wins).' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_REMOTE_TIMEOUT_MS)
  timeoutMs?: number;
}

/** Body of `PUT /internal/nodes/{id}`. */
export class RegisterRemoteNodeDto {
  @ApiProperty({ type: RemoteNodeManifestDto })
  @IsObject({ message: 'manifest must be an object' })
  @ValidateNested()
  @Type(() => RemoteNodeManifestDto)
  manifest!: RemoteNodeManifestDto;

  @ApiProperty({ example: 'http://crm:3000/internal/flow-nodes/lookup-customer', description: 'http or https URL flow-runtime POSTs each step to.' })
  @IsString()
  @MaxLength(2000)
  invokeUrl!: string;

  @ApiPropertyOptional({ description: "Per-step timeout in ms; default the manifest's, else FLOW_NODE_TIMEOUT_MS." })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_REMOTE_TIMEOUT_MS)
  timeoutMs?: number;
}

/** What the register route answers. */
export class RemoteNodeRegistrationView {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'The registering service (from its service token).' }) source!: string;
  @ApiProperty() invokeUrl!: string;
  @ApiPropertyOptional() timeoutMs?: number;
  @ApiProperty() registeredAt!: string;
  @ApiProperty({ description: 'False when an earlier registration of this id was replaced.' }) created!: boolean;
}
