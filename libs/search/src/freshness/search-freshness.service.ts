import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { EntityLifecyclePayload } from '@flowplane/contracts';
import { EVENT_BUS, type EventBus, type Subscription, validatedHandler } from '@flowplane/platform/bus';
import { SearchException } from '../domain/search.errors';
import { SearchService } from '../domain/search.service';
import { type SearchLifecycleConsumer, SearchOwners, type SearchModuleRegistration } from './search-owners.registry';

/** What `register` reports: what was taken and what was skipped, with why. */
export interface FreshnessRegistrationResult {
  module: string;
  consumers: Array<{ topic: string; groupId: string; index: string }>;
  skipped: Array<{ topic: string; reason: string }>;
  reindexers: string[];
}

interface Active {
  subscriptions: Subscription[];
  reindexers: string[];
}

/**
 * Keeps indexes fresh (spec rule 8): lifecycle consumers and reindexers of modules.
 *
 * A module that registers consumers must give its events list; without one, none of its
 * consumers is registered (each is reported as skipped), and a consumer whose topic is not in the
 * list is skipped too. Each consumer joins its own group on the bus; per event it rebuilds the
 * entity's document and upserts it, or deletes the point when `rebuild` answers null (the entity
 * is gone or no longer public). Events of an index that does not exist are dropped with a warning;
 * any other failure is retried by the bus and finally parked on `<topic>.dlq`.
 * Registering a module again replaces its earlier registration.
 */
@Injectable()
export class SearchFreshness implements OnApplicationShutdown {
  private readonly log = new Logger('SearchFreshness');
  private readonly active = new Map<string, Active>();

  constructor(
    private readonly search: SearchService,
    private readonly owners: SearchOwners,
    @Optional() @Inject(EVENT_BUS) private readonly bus?: EventBus | null,
  ) {}

  async register(reg: SearchModuleRegistration): Promise<FreshnessRegistrationResult> {
    await this.unregister(reg.module);
    const result: FreshnessRegistrationResult = { module: reg.module, consumers: [], skipped: [], reindexers: [] };
    const active: Active = { subscriptions: [], reindexers: [] };
    this.active.set(reg.module, active);

    for (const r of reg.reindexers ?? []) {
      this.owners.setReindexer(r);
      active.reindexers.push(r.index);
      result.reindexers.push(r.index);
    }

    const consumers = reg.consumers ?? [];
    const events = new Set(reg.events ?? []);
    for (const c of consumers) {
      const reason = !reg.events?.length
        ? 'the module registers consumers but provides no events list, so none is registered'
        : !events.has(c.topic)
          ? `topic ${c.topic} is not in the module's events list`
          : !this.bus
            ? 'this service has no event bus'
            : undefined;
      if (reason) {
        this.log.warn(`search consumer of ${reg.module} on ${c.topic} not registered: ${reason}`);
        result.skipped.push({ topic: c.topic, reason });
        continue;
      }
      active.subscriptions.push(await this.subscribe(reg.module, c));
      result.consumers.push({ topic: c.topic, groupId: c.groupId, index: c.index });
    }
    return result;
  }

  async unregister(module: string): Promise<boolean> {
    const active = this.active.get(module);
    if (!active) return false;
    this.active.delete(module);
    for (const index of active.reindexers) this.owners.removeReindexer(index, module);
    await Promise.allSettled(active.subscriptions.map((s) => s.stop()));
    return true;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.active.keys()].map((m) => this.unregister(m)));
  }

  private subscribe(module: string, c: SearchLifecycleConsumer): Promise<Subscription> {
    return this.bus!.subscribe(
      [c.topic],
      { groupId: c.groupId, fromBeginning: false },
      validatedHandler(EntityLifecyclePayload, async (event) => {
        const id = event.data.id;
        try {
          const doc = await c.rebuild(id);
          if (doc) await this.search.upsert(c.index, [doc]);
          else await this.search.deleteDocuments(c.index, [id]);
        } catch (err) {
          if (err instanceof SearchException && (err.status === 404 || err.status === 400)) {
            // Retrying cannot help a missing index or an invalid document: report and move on.
            this.log.warn(`${module}: ${c.topic} ${id} not applied to index "${c.index}": ${err.message}`);
            return;
          }
          throw err;
        }
      }),
    );
  }
}
