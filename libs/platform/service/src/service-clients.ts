import { Inject, Injectable } from '@nestjs/common';
import { ServiceClient, type ServiceClientOptions, type ServiceName, serviceUrl } from '@flowplane/contracts';
import { ServiceTokenProvider } from '@flowplane/platform/auth';
import { currentRequestId } from '@flowplane/platform/http';
import type { ServiceContext } from './service-definition';
import { SERVICE_CONTEXT } from './tokens';

/**
 * Makes clients for calls to other services (ARCHITECTURE §4): base URL from the launcher or
 * `<SERVICE>_URL`, a short-lived service token for the called service with only the permissions of
 * each call (see `INTERNAL_ROUTES`; one cached token per target and permission set), and the
 * current request id forwarded.
 */
@Injectable()
export class ServiceClients {
  private readonly clients = new Map<string, ServiceClient>();

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly ctx: ServiceContext,
    private readonly tokens: ServiceTokenProvider,
  ) {}

  /** A service token for `service` with `perms`, for a call the clients cannot make (a streamed response body). */
  token(service: ServiceName, perms: readonly string[]): Promise<string> {
    return this.tokens.token(service, perms);
  }

  /** The client of `service`; `options` apply the first time a client for that service is made. */
  for(service: ServiceName, options: Omit<ServiceClientOptions, 'service' | 'tokenProvider' | 'requestIdProvider'> = {}): ServiceClient {
    const key = `${service}|${options.baseUrl ?? ''}|${options.timeoutMs ?? ''}|${options.retries ?? ''}|${options.perms?.join(' ') ?? ''}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new ServiceClient({
        ...options,
        service,
        baseUrl: options.baseUrl ?? this.ctx.serviceUrls[service] ?? serviceUrl(service, this.ctx.env),
        tokenProvider: (target, perms) => this.tokens.token(target, perms),
        requestIdProvider: currentRequestId,
      });
      this.clients.set(key, client);
    }
    return client;
  }
}
