import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { callTimeoutMs, createProviderRegistry, GuardRegistry, HttpTransport, PrivateHostAllowlist } from '@flowplane/llm';
import { SERVICE_CONTEXT, type ServiceConfig, type ServiceContext } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import { llmNodes } from './llm-nodes';
import { LlmOptionsController } from './llm-options.controller';
import { InternalLlmUsageController, LlmUsageController } from './llm-usage.controller';
import { LLM_RUNTIME, type LlmRuntime } from './llm.tokens';
import { PriceTableService } from './price-table.service';
import { UsageConsumer } from './usage.consumer';
import { UsageLedgerService } from './usage-ledger.service';
import { UsageRepository } from './usage.repository';

export { LLM_RUNTIME, type LlmRuntime } from './llm.tokens';

function createLlmRuntime(ctx: ServiceContext, ledger: UsageLedgerService): LlmRuntime {
  const config = ctx.config as ServiceConfig & FlowRuntimeEnv;
  const timeoutMs = callTimeoutMs({ AI_CALL_TIMEOUT: config.AI_CALL_TIMEOUT, TRANSLATE_CALL_TIMEOUT: ctx.env['TRANSLATE_CALL_TIMEOUT'] });
  const allowlist = new PrivateHostAllowlist(config.LLM_ALLOWED_PRIVATE_HOSTS);
  const transport = new HttpTransport({ timeoutMs, maxRetries: config.LLM_MAX_RETRIES ?? 2, allowPrivate: (host, address) => allowlist.allows(host, address) });
  const providers = createProviderRegistry({ transport });
  const guards = new GuardRegistry();
  const log = new Logger('LlmUsage');
  const nodes = llmNodes({ providers, guards, usage: ledger, callTimeoutMs: timeoutMs, onRecordError: (e) => log.error(`a usage row could not be stored: ${(e as Error).message}`) });
  return { providers, guards, nodes, callTimeoutMs: timeoutMs, close: () => transport.close() };
}

/** Closes pooled provider connections on shutdown. */
@Injectable()
class LlmRuntimeCloser implements OnApplicationShutdown {
  constructor(@Inject(LLM_RUNTIME) private readonly runtime: LlmRuntime) {}
  async onApplicationShutdown(): Promise<void> {
    await this.runtime.close();
  }
}

/**
 * The LLM layer inside flow-runtime (issue 8): the provider and guard registries behind the
 * `svc/llm-chat` and `svc/guard` nodes, the live option sources the profiles service lists, the
 * `llm_usage` ledger with its price table, its admin routes and the `llm.usage_recorded` consumer.
 * Global so the node registry (NodesModule) can take the two nodes when it is made.
 */
@Global()
@Module({
  controllers: [LlmUsageController, InternalLlmUsageController, LlmOptionsController],
  providers: [
    UsageRepository,
    PriceTableService,
    UsageLedgerService,
    UsageConsumer,
    { provide: LLM_RUNTIME, inject: [SERVICE_CONTEXT, UsageLedgerService], useFactory: createLlmRuntime },
    LlmRuntimeCloser,
  ],
  exports: [LLM_RUNTIME, UsageLedgerService],
})
export class LlmModule {}
