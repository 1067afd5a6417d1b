import { Inject, Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { GatewayEnv } from './gateway.env';
import { topLevelMounts, type TopLevelMounts } from './route-table';
import { DeploymentDescriptions, withDeployedRoutes } from './deployment-descriptions';
import { UpstreamClient } from './upstream-client';
import { mergeOpenApi } from './openapi-merge';

const CACHE_MS = 10_000;

/** Builds the merged OpenAPI document from every service, cached briefly. */
@Injectable()
export class OpenApiAggregator {
  private base?: () => OpenAPIObject;
  private cache?: { at: number; doc: OpenAPIObject };
  private readonly mounts: TopLevelMounts;

  constructor(
    private readonly upstreams: UpstreamClient,
    private readonly deployments: DeploymentDescriptions,
    @Inject(SERVICE_CONFIG) config: ServiceConfig & GatewayEnv,
  ) {
    this.mounts = topLevelMounts(config.WS_MOUNT_PATH);
  }

  /** Sets the gateway's own document (built once the app is initialised). */
  setBase(build: () => OpenAPIObject): void {
    this.base = build;
  }

  /**
   * The merged document plus the routes of enabled route deployments; services that do not
   * answer are listed in `x-unavailable-services`.
   */
  async merged(): Promise<OpenAPIObject> {
    const [services, deployed] = await Promise.all([this.services(), this.deployments.get()]);
    if (!deployed) return { ...services, 'x-unavailable-services': [...new Set([...(((services as unknown as Record<string, unknown>)['x-unavailable-services'] as string[]) ?? []), 'deployments'])] } as OpenAPIObject;
    return withDeployedRoutes(services as unknown as Record<string, unknown>, deployed) as unknown as OpenAPIObject;
  }

  /** Every service's own document, merged; cached briefly (their routes change only with a deploy). */
  private async services(): Promise<OpenAPIObject> {
    if (this.cache && Date.now() - this.cache.at < CACHE_MS) return this.cache.doc;
    const answers = await this.upstreams.all('/openapi.json', 3000);
    const docs = answers.filter((a) => a.ok && typeof a.body === 'object').map((a) => ({ service: a.service, doc: a.body as OpenAPIObject }));
    const base = this.base?.() ?? ({ openapi: '3.0.0', info: { title: 'Flowplane API', version: '0.1.0' }, paths: {} } as OpenAPIObject);
    const doc = mergeOpenApi({ ...base, info: { ...base.info, title: 'Flowplane API', description: 'Every public route of the platform, merged by the gateway.', license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' } } }, docs, this.mounts) as OpenAPIObject & Record<string, unknown>;
    const unavailable = answers.filter((a) => !a.ok).map((a) => a.service);
    if (unavailable.length) doc['x-unavailable-services'] = unavailable;
    else this.cache = { at: Date.now(), doc };
    return doc;
  }
}
