import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { UpstreamClient } from './upstream-client';
import { mergeOpenApi } from './openapi-merge';

const CACHE_MS = 10_000;

/** Builds the merged OpenAPI document from every service, cached briefly. */
@Injectable()
export class OpenApiAggregator {
  private base?: () => OpenAPIObject;
  private cache?: { at: number; doc: OpenAPIObject };

  constructor(private readonly upstreams: UpstreamClient) {}

  /** Sets the gateway's own document (built once the app is initialised). */
  setBase(build: () => OpenAPIObject): void {
    this.base = build;
  }

  /** The merged document; services that do not answer are listed in `x-unavailable-services`. */
  async merged(): Promise<OpenAPIObject> {
    if (this.cache && Date.now() - this.cache.at < CACHE_MS) return this.cache.doc;
    const answers = await this.upstreams.all('/openapi.json', 3000);
    const docs = answers.filter((a) => a.ok && typeof a.body === 'object').map((a) => ({ service: a.service, doc: a.body as OpenAPIObject }));
    const base = this.base?.() ?? ({ openapi: '3.0.0', info: { title: 'Flowplane API', version: '0.1.0' }, paths: {} } as OpenAPIObject);
    const doc = mergeOpenApi({ ...base, info: { ...base.info, title: 'Flowplane API', description: 'Every public route of the platform, merged by the gateway.' } }, docs) as OpenAPIObject & Record<string, unknown>;
    const unavailable = answers.filter((a) => !a.ok).map((a) => a.service);
    if (unavailable.length) doc['x-unavailable-services'] = unavailable;
    else this.cache = { at: Date.now(), doc };
    return doc;
  }
}
