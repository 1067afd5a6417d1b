import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsStringRecord } from './event-validators';

/**
 * Kinds of deployment (assistant-deployments-profiles.md, Deployment): `route` binds an HTTP route,
 * `subscriber` a bus channel; `invoke` binds nothing (a published flow run on demand: its variant is
 * chosen through `/deployments/{id}/select` and run through the runs API).
 */
export const DEPLOYMENT_KINDS = ['route', 'subscriber', 'invoke'] as const;
/** A deployment kind. */
export type DeploymentKind = (typeof DEPLOYMENT_KINDS)[number];
/** What happened to a deployment. */
export const DEPLOYMENT_CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const;
/** A deployment change action. */
export type DeploymentChangeAction = (typeof DEPLOYMENT_CHANGE_ACTIONS)[number];

/** One weighted variant of a deployment as announced on the bus. */
export class DeploymentVariantRef {
  @IsString()
  @IsNotEmpty()
  label!: string;

  @IsString()
  @IsNotEmpty()
  flowId!: string;

  /** Pins a version; absent means follow the flow's publish pointer. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  versionId?: string;

  /** Relative weight; zero is declared but never selected. */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  weight!: number;
}

/** The route a route deployment claims. */
export class DeploymentRouteRef {
  @IsString()
  @IsNotEmpty()
  method!: string;

  @IsString()
  @IsNotEmpty()
  path!: string;
}

/** Auth modes of a dispatched route: open, any authenticated caller, or callers holding every listed perm. */
export const DEPLOYMENT_AUTH_MODES = ['public', 'authenticated', 'perms'] as const;
export type DeploymentAuthMode = (typeof DEPLOYMENT_AUTH_MODES)[number];

/** Who may call a dispatched route (default `authenticated`, so a route is never open by accident). */
export class DeploymentAuthRef {
  @IsIn(DEPLOYMENT_AUTH_MODES)
  mode!: DeploymentAuthMode;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  perms?: string[];
}

/**
 * Payload of `deployments.changed` (our own topic). flow-runtime re-syncs the bindings of the deployment
 * (route dispatcher, event-source subscriptions) on receipt. It carries the routing-relevant state so the
 * common case needs no call back; `revision` lets a consumer drop an older state that arrives late.
 * `variants`, `labels` and `stickyBy` are absent on delete.
 */
export class DeploymentsChangedPayload {
  @IsString()
  @IsNotEmpty()
  deploymentId!: string;

  @IsIn(DEPLOYMENT_CHANGE_ACTIONS)
  action!: DeploymentChangeAction;

  @IsIn(DEPLOYMENT_KINDS)
  kind!: DeploymentKind;

  @IsBoolean()
  disabled!: boolean;

  /** Monotonic per deployment; increases with every write. */
  @IsInt()
  @Min(0)
  revision!: number;

  /** Top-level fields a PATCH changed (for example `disabled`, `variants`). */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  changedFields?: string[];

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => DeploymentVariantRef)
  variants?: DeploymentVariantRef[];

  @IsOptional()
  @IsStringRecord()
  labels?: Record<string, string>;

  @IsOptional()
  @IsString()
  stickyBy?: string;

  /** Route deployments: the claimed route, path relative to /api/v1. */
  @IsOptional()
  @ValidateNested()
  @Type(() => DeploymentRouteRef)
  route?: DeploymentRouteRef;

  /** Route deployments: who may call the route. */
  @IsOptional()
  @ValidateNested()
  @Type(() => DeploymentAuthRef)
  auth?: DeploymentAuthRef;
}
