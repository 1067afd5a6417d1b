import { Inject, Injectable } from '@nestjs/common';
import { ServiceCallError, ServiceUnavailableError } from '@flowplane/contracts';
import { SERVICE_CONFIG, type ServiceConfig, ServiceClients } from '@flowplane/platform/service';
import { type GatewayEnv, type UpstreamService, UPSTREAM_SERVICES, upstreamUrls } from './gateway.env';

export interface UpstreamAnswer {
  service: UpstreamService;
  ok: boolean;
  status?: number;
  body?: unknown;
  error?: string;
}

/** Reads from every upstream service in parallel (no retries: these feed health and docs views). */
@Injectable()
export class UpstreamClient {
  private readonly urls: Record<UpstreamService, string>;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    private readonly clients: ServiceClients,
  ) {
    this.urls = upstreamUrls(config as unknown as GatewayEnv);
  }

  /** GETs `path` from one service with the gateway's service token; never throws. */
  async get(service: UpstreamService, path: string, timeoutMs = 3000): Promise<UpstreamAnswer> {
    const client = this.clients.for(service, { baseUrl: this.urls[service], timeoutMs, retries: 0 });
    try {
      const res = await client.send('GET', path);
      return { service, ok: true, status: res.status, body: res.data };
    } catch (e) {
      if (e instanceof ServiceUnavailableError) return { service, ok: false, error: e.reason === 'timeout' ? `no answer within ${timeoutMs} ms` : e.message };
      if (e instanceof ServiceCallError) return { service, ok: false, status: e.status, body: e.body };
      return { service, ok: false, error: (e as Error).message };
    }
  }

  /** GETs `path` from every service. */
  all(path: string, timeoutMs?: number): Promise<UpstreamAnswer[]> {
    return Promise.all(UPSTREAM_SERVICES.map((s) => this.get(s, path, timeoutMs)));
  }
}
