import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { ChatRepository } from '../persistence/chat.repository';

/**
 * Reaps expired chats every ASSISTANT_SWEEP_INTERVAL_MS (rule 2) beside the store's TTL index,
 * whose reaper runs on its own schedule; handoffs live in their own collection and stay.
 */
@Injectable()
export class ChatSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('AssistantChatSweeper');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly chats: ChatRepository,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
  ) {}

  onApplicationBootstrap(): void {
    const every = (this.config as ServiceConfig & AssistantEnv).ASSISTANT_SWEEP_INTERVAL_MS;
    if (!every) return;
    this.timer = setInterval(() => {
      this.chats.sweepExpired().then(
        (n) => n && this.log.log(`removed ${n} expired chat(s)`),
        (e: Error) => this.log.warn(`sweeping expired chats failed: ${e.message}`),
      );
    }, every);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
