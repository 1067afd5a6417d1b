import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import { type FlowTemplate, TEMPLATE_PROVIDERS, type TemplateProvider } from './flow-template';

interface RemoteProviderDocument extends StoreDocument {
  priority: number;
  templatesJson: string;
  registeredAt: Date;
}

/** Summary returned by the list route: no documents. */
export type TemplateSummary = Pick<FlowTemplate, 'id' | 'name' | 'description' | 'source' | 'tags'>;

/**
 * Every template of every provider, de-duplicated by id (highest priority first, then registration
 * order: first wins). In-process providers are injected; other services register their lists over
 * an internal route, kept in the store so a restart of flow-runtime does not forget them.
 */
@Injectable()
export class TemplateRegistry implements OnModuleInit {
  private readonly remotes: Collection<RemoteProviderDocument>;
  private remoteCache = new Map<string, TemplateProvider>();

  constructor(
    @Inject(STORE) store: Store,
    @Inject(TEMPLATE_PROVIDERS) private readonly local: TemplateProvider[],
  ) {
    this.remotes = store.collection<RemoteProviderDocument>('template_providers');
  }

  async onModuleInit(): Promise<void> {
    for (const d of await this.remotes.find({}, { sort: { registeredAt: 1 } })) this.remember(d);
  }

  /** Registers or replaces the list of a remote module. */
  async register(source: string, templates: FlowTemplate[], priority = 0): Promise<void> {
    const doc = { _id: source, priority, templatesJson: JSON.stringify(templates), registeredAt: new Date() };
    await this.remotes.replaceOne({ _id: source }, { priority: doc.priority, templatesJson: doc.templatesJson, registeredAt: doc.registeredAt }, { upsert: true });
    this.remember(doc);
  }

  private remember(d: RemoteProviderDocument): void {
    const templates = (JSON.parse(d.templatesJson) as FlowTemplate[]).map((t) => ({ ...t, source: t.source || d._id }));
    this.remoteCache.set(d._id, { source: d._id, priority: d.priority, list: () => templates });
  }

  /** Every template, de-duplicated by id. */
  all(): FlowTemplate[] {
    const providers = [...this.local, ...this.remoteCache.values()].map((p, order) => ({ p, order }));
    providers.sort((a, b) => b.p.priority - a.p.priority || a.order - b.order);
    const seen = new Map<string, FlowTemplate>();
    for (const { p } of providers) for (const t of p.list()) if (!seen.has(t.id)) seen.set(t.id, t);
    return [...seen.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Summaries matching `q` (every word in id, name, description, source or tags; case-insensitive). */
  search(q?: string): TemplateSummary[] {
    const words = (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return this.all()
      .filter((t) => {
        if (!words.length) return true;
        const hay = [t.id, t.name, t.description, t.source, ...t.tags].join(' ').toLowerCase();
        return words.every((w) => hay.includes(w));
      })
      .map(({ id, name, description, source, tags }) => ({ id, name, description, source, tags }));
  }

  get(id: string): FlowTemplate | undefined {
    return this.all().find((t) => t.id === id);
  }
}
