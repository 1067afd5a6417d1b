import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { DEPLOYMENT_AUTH_MODES, DEPLOYMENT_KINDS, type DeploymentAuthMode, type DeploymentKind, IsStringRecord } from '@flowplane/contracts';

/** One weighted variant. */
export class VariantDto {
  @ApiProperty({ example: 'stable', description: '`stable` is the canonical variant.' })
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'label must be 1 to 64 letters, digits, ".", "_" or "-"' })
  label!: string;

  @ApiProperty({ example: 'order-intake' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  flowId!: string;

  @ApiPropertyOptional({ example: 'order-intake@v3', description: 'Pins a version independently of the flow publish pointer.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(250)
  versionId?: string;

  @ApiProperty({ example: 90, minimum: 0, description: 'Relative weight; 0 is never selected.' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  weight!: number;
}

/** Who may call a dispatched route. */
export class RouteAuthDto {
  @ApiProperty({ enum: DEPLOYMENT_AUTH_MODES, default: 'authenticated' })
  @IsIn(DEPLOYMENT_AUTH_MODES)
  mode!: DeploymentAuthMode;

  @ApiPropertyOptional({ type: [String], example: ['orders:write'], description: 'Every listed permission is required (mode perms).' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  perms?: string[];
}

/** Body of POST /deployments. */
export class CreateDeploymentDto {
  @ApiPropertyOptional({ example: 'orders-api', description: 'Generated from the name when absent.' })
  @IsOptional()
  @IsString()
  id?: string;

  @ApiProperty({ example: 'Orders API' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiProperty({ enum: DEPLOYMENT_KINDS, description: 'route: an HTTP route; subscriber: a bus channel; invoke: no binding (variants chosen through /select, run through the runs API).' })
  @IsIn(DEPLOYMENT_KINDS)
  kind!: DeploymentKind;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { 'x-route': 'POST /orders', 'tag:shop': '' } })
  // null is not "absent" here: only an object of strings (or nothing) is a set of labels.
  @ValidateIf((_, v) => v !== undefined)
  @IsStringRecord()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ example: 'session_id', description: 'Field of the run meta hashed for sticky bucketing; absent or empty means a non-sticky weighted draw.' })
  @IsOptional()
  @IsString()
  stickyBy?: string;

  @ApiProperty({ type: [VariantDto] })
  @IsArray()
  @ArrayMinSize(1, { message: 'variants must list at least one variant' })
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => VariantDto)
  variants!: VariantDto[];

  @ApiPropertyOptional({ type: RouteAuthDto, description: 'Route deployments; default {mode: authenticated}.' })
  @IsOptional()
  @ValidateNested()
  @Type(() => RouteAuthDto)
  auth?: RouteAuthDto;
}

/** Body of PATCH /deployments/{id}: any field. */
export class PatchDeploymentDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ enum: DEPLOYMENT_KINDS, description: 'Cannot change; accepted when equal.' })
  @IsOptional()
  @IsIn(DEPLOYMENT_KINDS)
  kind?: DeploymentKind;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  // null is not "absent" here: only an object of strings (or nothing) is a set of labels.
  @ValidateIf((_, v) => v !== undefined)
  @IsStringRecord()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ nullable: true, description: 'null or an empty string clears it (a non-sticky weighted draw).' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  stickyBy?: string | null;

  @ApiPropertyOptional({ type: [VariantDto] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'variants must list at least one variant' })
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => VariantDto)
  variants?: VariantDto[];

  @ApiPropertyOptional({ type: RouteAuthDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => RouteAuthDto)
  auth?: RouteAuthDto;
}

/** Body of POST /deployments/{id}/select. */
export class SelectVariantDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { session_id: 's-42' } })
  @IsOptional()
  @IsObject()
  meta?: Record<string, unknown>;
}

/** Body of POST /deployments/{id}/variants/from-template. */
export class VariantFromTemplateDto {
  @ApiProperty({ example: 'flow/echo' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  templateId!: string;

  @ApiProperty({ example: 'canary' })
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'label must be 1 to 64 letters, digits, ".", "_" or "-"' })
  label!: string;

  @ApiProperty({ example: 10, minimum: 0 })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  weight!: number;

  @ApiPropertyOptional({ default: false, description: 'Pin the variant to the saved version.' })
  @IsOptional()
  @IsBoolean()
  pinVersion?: boolean;
}

class RouteView {
  @ApiProperty() method!: string;
  @ApiProperty() path!: string;
}

class ContributedRouteView {
  @ApiProperty() method!: string;
  @ApiProperty() path!: string;
  @ApiProperty() success_status!: number;
  @ApiProperty({ description: "The flow's meta.route.summary, else `<deployment name> (<METHOD> <path>)`: the summary the OpenAPI description shows." }) summary!: string;
}

class ContributedEventView {
  @ApiProperty() name!: string;
  @ApiPropertyOptional() filter?: string;
  @ApiProperty({ enum: ['subscribe', 'publish'] }) direction!: string;
}

class ContributedPacketView {
  @ApiProperty() name!: string;
  @ApiProperty() $ref!: string;
}

class ContributesView {
  @ApiProperty({ type: [ContributedRouteView] }) routes!: ContributedRouteView[];
  @ApiProperty({ type: [ContributedEventView] }) events!: ContributedEventView[];
  @ApiProperty({ type: [ContributedPacketView] }) packets!: ContributedPacketView[];
}

/** A deployment as read. */
export class DeploymentView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: DEPLOYMENT_KINDS }) kind!: string;
  @ApiProperty() disabled!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty({ type: [String], description: 'Derived from labels; read-only.' }) tags!: string[];
  @ApiPropertyOptional() stickyBy?: string;
  @ApiProperty({ type: [VariantDto] }) variants!: VariantDto[];
  @ApiPropertyOptional({ type: RouteView }) route?: RouteView;
  @ApiPropertyOptional({ type: RouteAuthDto }) auth?: RouteAuthDto;
  @ApiPropertyOptional({ description: 'Read-only: the flow this deployment is auto-managed for (publish or template activation made it); another deployment naming that flow absorbs it.' })
  managedFor?: string;
  @ApiPropertyOptional({ type: ContributesView, description: 'Read-only, computed from the stable variant flow.' }) contributes?: ContributesView;
  @ApiPropertyOptional({ description: 'Why contributes is missing or partial.' }) contributesError?: string;
  @ApiProperty() revision!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** Answer of POST /deployments/{id}/select. */
export class SelectionView {
  @ApiProperty() deploymentId!: string;
  @ApiProperty({ type: VariantDto }) variant!: VariantDto;
  @ApiProperty({ description: 'Whether the choice was sticky (stickyBy field present in meta).' }) sticky!: boolean;
}
