import { Inject, Injectable } from '@nestjs/common';
import { ServiceTokenProvider } from '@flowplane/platform/auth';
import { currentRequestId } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import { type GatewayEnv, type UpstreamService, UPSTREAM_SERVICES, upstreamUrls } from './gateway.env';

export interface UpstreamAnswer {
  service: UpstreamService;
  ok: boolean;
  status?: number;
  body?: unknown;
  error?: string;
}

/** Reads from every upstream service in parallel, with a timeout and the gateway's service token. */
@Injectable()
export class UpstreamClient {
  readonly urls: Record<UpstreamService, string>;

  constructor(
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
    private readonly tokens: ServiceTokenProvider,
  ) {
    this.urls = upstreamUrls(config as unknown as GatewayEnv);
  }

  /** GETs `path` from one service; never throws. */
  async get(service: UpstreamService, path: string, timeoutMs = 3000, auth = false): Promise<UpstreamAnswer> {
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      const rid = currentRequestId();
      if (rid) headers['x-request-id'] = rid;
      if (auth) headers.authorization = `Bearer ${await this.tokens.token()}`;
      const res = await fetch(this.urls[service] + path, { headers, signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { service, ok: res.ok, status: res.status, body };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      const reason = err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err.cause?.code ?? err.message);
      return { service, ok: false, error: reason };
    }
  }

  /** GETs `path` from every service. */
  all(path: string, timeoutMs?: number, auth?: boolean): Promise<UpstreamAnswer[]> {
    return Promise.all(UPSTREAM_SERVICES.map((s) => this.get(s, path, timeoutMs, auth)));
  }
}
