import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { ServiceCallError, Topics } from '@flowplane/contracts';
import { ReadinessRegistry } from '@flowplane/platform/health';
import { ServiceClients } from '@flowplane/platform/service';
import { I18nConfig } from '../../i18n.config';
import { I18nNodeRegistrar } from '../../nodes/i18n-node.registrar';
import { seedScheduleEntry } from '../../shared/seed-schedule';
import { decideSeed, type StoredFlowRef } from './flow-seed-decision';
import { I18N_FLOW_TEMPLATES, TRANSLATE_SWEEP_SCHEDULE } from './translation-flow-templates';

/** Longest the service start waits for the first attempt (later attempts run in the background). */
const START_WAIT_MS = 10_000;
const MAX_RETRY_MS = 2_000;

/** What one seeding pass did, per flow and for the schedule (for logs and tests). */
export interface SeedPass {
  flows: Array<{ flowId: string; action: string; reason?: string }>;
  schedule: 'inserted' | 'existing' | 'not seeded (I18N_TRANSLATE_SWEEP_CRON is empty)' | 'refused';
}

/**
 * At start-up (automatic translation rule 9): registers the two translation templates with
 * flow-runtime's registry, publishes them as the flows `i18n-translate-on-change` and
 * `i18n-translate-sweep` (see `decideSeed`: created once, re-published when the template changes,
 * never replacing an operator's edit), and seeds the scheduler entry `i18n-translate-sweep` from
 * I18N_TRANSLATE_SWEEP_CRON, which flow-runtime never retimes or re-enables once present. The
 * service is not ready until both flows are published; every failure retries (flow-runtime, or
 * this service's fill node registration, may not be up yet when all services start together).
 * I18N_AUTO_TRANSLATE_DISABLED (or the module disabled) publishes and seeds nothing; the templates
 * are still offered in the registry for an operator to activate.
 */
@Injectable()
export class TranslationFlowsSeeder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('TranslationFlows');
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private lastError?: string;
  private attempts = 0;
  private finished = false;
  private readonly waiters: Array<() => void> = [];

  constructor(
    @Inject(I18nConfig) private readonly config: I18nConfig,
    private readonly clients: ServiceClients,
    @Optional() private readonly readiness?: ReadinessRegistry,
    @Optional() private readonly nodes?: I18nNodeRegistrar,
  ) {}

  private get publishing(): boolean {
    return this.config.enabled && !this.config.autoTranslateDisabled;
  }

  async onApplicationBootstrap(): Promise<void> {
    const done = this.publishing ? this.readiness?.beginSeeding('i18n translation flows') : undefined;
    if (!this.publishing) this.log.log('automatic translation flows and the sweep schedule are not published (I18N_AUTO_TRANSLATE_DISABLED or i18n disabled)');
    let delay = 25;
    const attempt = async (): Promise<void> => {
      if (this.stopped) return;
      this.attempts++;
      try {
        await this.execute();
        done?.();
        this.finished = true;
        for (const w of this.waiters.splice(0)) w();
      } catch (e) {
        const message = describe(e);
        if (this.attempts >= 8 && message !== this.lastError) {
          this.log.warn(`translation flows not published yet (retrying): ${message}`);
          this.lastError = message;
        }
        this.timer = setTimeout(() => void attempt(), delay);
        this.timer.unref();
        delay = Math.min(MAX_RETRY_MS, delay * 2);
      }
    };
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([attempt(), new Promise<void>((resolve) => (waited = setTimeout(resolve, START_WAIT_MS)))]);
    clearTimeout(waited);
  }

  /**
   * Resolves once the flows are published (or `ms` passed). The service definition awaits it after
   * listening: the fill node can only be registered, and the flows naming it published, once this
   * service has an address, so a platform that has started is ready at once.
   */
  settled(ms: number): Promise<void> {
    if (this.finished || this.stopped || !this.publishing) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** One pass: templates, then (unless disabled) both flows and the schedule. Throws to be retried. */
  async execute(): Promise<SeedPass | undefined> {
    const flowRuntime = this.clients.for('flow-runtime', { timeoutMs: 10_000, retries: 0 });
    await flowRuntime.put('/internal/templates/providers/i18n', {
      templates: I18N_FLOW_TEMPLATES.map(({ id, name, description, source, tags, document }) => ({ id, name, description, source, tags, document })),
    });
    if (!this.publishing) return undefined;
    // flow-runtime refuses to publish a flow naming a node it does not know yet.
    if (this.nodes && !this.nodes.done) throw new Error('i18n/fill-translations is not registered with flow-runtime yet');

    const { flows } = await flowRuntime.post<{ flows: StoredFlowRef[] }>('/internal/flows/documents', { refs: I18N_FLOW_TEMPLATES.map((t) => ({ flowId: t.flowId })) }, { idempotent: true });
    const pass: SeedPass = { flows: [], schedule: 'existing' };
    for (const template of I18N_FLOW_TEMPLATES) {
      const decision = decideSeed(template.document, flows.find((f) => f.flowId === template.flowId));
      if (decision.action === 'keep') {
        if (decision.reason !== 'up to date') this.log.log(`flow ${template.flowId} left as it is: ${decision.reason}`);
        pass.flows.push({ flowId: template.flowId, action: 'unchanged', reason: decision.reason });
        continue;
      }
      const r = await flowRuntime.put<{ action: string; versionId?: string; reason?: string }>(`/internal/flows/${encodeURIComponent(template.flowId)}`, {
        name: template.name,
        description: template.description,
        document: decision.document,
      });
      this.log.log(`flow ${template.flowId} ${r.action} from template ${template.id}${r.versionId ? ` (${r.versionId})` : ''}${r.reason ? `: ${r.reason}` : ''}`);
      pass.flows.push({ flowId: template.flowId, action: r.action, reason: r.reason });
    }
    pass.schedule = await this.seedSchedule();
    return pass;
  }

  /** The sweep's scheduler entry, seeded once: flow-runtime leaves an existing entry exactly as it is. */
  private async seedSchedule(): Promise<SeedPass['schedule']> {
    const cron = this.config.translateSweepCron.trim();
    if (!cron) return 'not seeded (I18N_TRANSLATE_SWEEP_CRON is empty)';
    return seedScheduleEntry(this.clients, this.log, { id: TRANSLATE_SWEEP_SCHEDULE, cron, topic: Topics.I18nTranslateSweep, cronVariable: 'I18N_TRANSLATE_SWEEP_CRON' });
  }
}

function describe(e: unknown): string {
  if (e instanceof ServiceCallError) return `${e.message}${e.remoteMessage ? `: ${e.remoteMessage}` : ''}`;
  return (e as Error).message;
}
