import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { ReadinessRegistry } from '@flowplane/platform/health';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { AssistantEnv } from '../../assistant.env';
import { UpstreamClients } from '../../upstream/upstream.clients';
import { DEFAULT_TEMPLATE, templateDocument, templateNamed } from '../domain/assistant-templates';
import { registeredTemplates } from '../domain/handoff-notification.template';

/** Longest the service start waits for the first seeding attempt. */
const START_WAIT_MS = 10_000;

/** Id of the flow the assistant module owns. */
export const MODULE_FLOW_ID = 'assistant';

/**
 * At start-up (issue 16 item 1): seeds the module flow `assistant` from the embedded `default`
 * template (flow-runtime upgrades a module-owned published version when the template's
 * `meta.schemaVersion` is higher, never a version anyone else wrote; ASSISTANT_FLOW_SKIP_AUTO_UPGRADE
 * leaves an existing flow alone), then creates the deployment ASSISTANT_DEPLOYMENT_ID (kind invoke,
 * sticky by session_id, one variant `stable` on the module flow, or on ASSISTANT_FLOW_ID: rule 8)
 * when none exists, absorbing the flow's automatic one. An existing deployment is never changed:
 * its variants are the operators'. The service is not ready until both exist; failures retry.
 */
@Injectable()
export class EnsureModuleFlowUseCase implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('AssistantModuleFlow');
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private lastError?: string;

  constructor(
    private readonly upstream: UpstreamClients,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Optional() private readonly readiness?: ReadinessRegistry,
  ) {}

  /**
   * Starts seeding and waits for the first attempt (at most START_WAIT_MS), so a platform that has
   * started is ready at once when its dependencies were up; later attempts run in the background.
   */
  async onApplicationBootstrap(): Promise<void> {
    const done = this.readiness?.beginSeeding('assistant flow and deployment');
    // Sibling services may still be starting: retry soon, then back off to once a second.
    let delay = 25;
    const attempt = async (): Promise<void> => {
      if (this.stopped) return;
      try {
        await this.execute();
        done?.();
      } catch (e) {
        const message = (e as Error).message;
        // One line per distinct reason, not one a second.
        if (delay >= 1000 && message !== this.lastError) {
          this.log.warn(`assistant flow or deployment not ready yet (retrying): ${message}`);
          this.lastError = message;
        }
        this.timer = setTimeout(() => void attempt(), delay);
        delay = Math.min(1000, delay * 2);
        this.timer.unref();
      }
    };
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([attempt(), new Promise<void>((resolve) => (waited = setTimeout(resolve, START_WAIT_MS)))]);
    clearTimeout(waited);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  async execute(): Promise<void> {
    const env = this.config as ServiceConfig & AssistantEnv;
    const template = templateNamed(DEFAULT_TEMPLATE)!;
    await this.upstream.registerTemplates(registeredTemplates());
    const [existing] = await this.upstream.documents([{ flowId: MODULE_FLOW_ID }], true);
    if (!(env.ASSISTANT_FLOW_SKIP_AUTO_UPGRADE && existing?.found)) {
      const r = await this.upstream.seedFlow(MODULE_FLOW_ID, { name: 'Assistant', description: template.description, document: templateDocument(DEFAULT_TEMPLATE)! });
      if (r.action !== 'unchanged') this.log.log(`module flow ${MODULE_FLOW_ID} ${r.action} (${r.versionId})`);
    }
    const id = env.ASSISTANT_DEPLOYMENT_ID;
    if (await this.upstream.deployment(id, true)) return;
    const flowId = env.ASSISTANT_FLOW_ID || MODULE_FLOW_ID;
    await this.upstream.ensureDeployment(id, { name: 'Assistant', kind: 'invoke', labels: { 'x-source': 'assistant' }, stable: { flowId }, stickyBy: 'session_id' });
    this.log.log(`deployment ${id} created on flow ${flowId}`);
  }
}
