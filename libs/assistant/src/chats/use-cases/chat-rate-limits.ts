import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainException } from '@flowplane/platform/http';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';

/**
 * Limits of anonymous chat: ASSISTANT_RATE_LIMIT messages a minute per session and
 * ASSISTANT_RATE_LIMIT_PER_ADDRESS per client address (0 disables either). Counted per replica.
 */
@Injectable()
export class ChatRateLimits {
  private readonly perSession?: RateLimiterMemory;
  private readonly perAddress?: RateLimiterMemory;

  constructor(@Inject(SERVICE_CONFIG) config: ServiceConfig) {
    const env = config as ServiceConfig & AssistantEnv;
    if (env.ASSISTANT_RATE_LIMIT > 0) this.perSession = new RateLimiterMemory({ points: env.ASSISTANT_RATE_LIMIT, duration: 60, keyPrefix: 's' });
    if (env.ASSISTANT_RATE_LIMIT_PER_ADDRESS > 0) this.perAddress = new RateLimiterMemory({ points: env.ASSISTANT_RATE_LIMIT_PER_ADDRESS, duration: 60, keyPrefix: 'a' });
  }

  /** Counts one message; throws 429 (with `retryAfter` seconds) when a limit is spent. */
  async take(sessionId: string | undefined, address: string): Promise<void> {
    try {
      await Promise.all([sessionId && this.perSession?.consume(sessionId), this.perAddress?.consume(address)]);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const retryAfter = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw Object.assign(new DomainException('RATE_LIMITED', 429, `too many messages; retry in ${retryAfter} s`), { retryAfter });
    }
  }
}
