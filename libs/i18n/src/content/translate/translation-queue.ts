import { Inject, Injectable } from '@nestjs/common';
import { I18nConfig } from '../../i18n.config';
import { ContentException } from '../content.exception';
import { contentChain, pickText } from '../domain/localized-text';
import { approvePending, isPendingStale, rejectPending, type TranslationState, unitHash } from '../domain/translation-state';
import { ContentOutbox } from '../persistence/content.outbox';
import { ContentRepository } from '../persistence/content.repository';
import { PublicContentService } from '../use-cases/public-content.service';
import { PublicPageCache, type RenderedPage } from '../use-cases/public-page.cache';
import { type ContentRecord, type ContentType, markerAt, recordOfFragment, recordOfPage, setUnitText, stateOf, unitsOf } from './record-text';

/** One held candidate as the queue shows it: the source beside it and what readers see now. */
export interface PendingItem {
  type: ContentType;
  id: string;
  unit: string;
  locale: string;
  candidate: string;
  /** The unit's source text now. */
  source: string;
  /** What readers of `locale` see for the unit now (by the locale chain); null when nothing. */
  current: string | null;
  /** The source moved since the candidate was made: approving needs `force`. */
  sourceChanged: boolean;
  /** When the candidate was made. */
  at: string;
}

export interface ApproveRequest {
  type: ContentType;
  id: string;
  locale: string;
  unit?: string;
  text?: string;
  force?: boolean;
}

/**
 * The review queue of content (settings rule 17): what waits, approving (the candidate, or an edited
 * text, goes live; refused when its source moved unless forced) and rejecting (discarded; the next
 * run makes a fresh one). Also the preview of a page as it would read with its candidates approved.
 */
@Injectable()
export class ContentTranslationQueue {
  constructor(
    @Inject(ContentRepository) private readonly repository: ContentRepository,
    @Inject(ContentOutbox) private readonly outbox: ContentOutbox,
    @Inject(I18nConfig) private readonly config: I18nConfig,
    @Inject(PublicContentService) private readonly pages: PublicContentService,
    @Inject(PublicPageCache) private readonly cache: PublicPageCache,
  ) {}

  async pending(): Promise<{ items: PendingItem[] }> {
    const items: PendingItem[] = [];
    for (let after: string | undefined; ; ) {
      const batch = await this.repository.listPages(500, after);
      for (const p of batch) items.push(...this.itemsOf(recordOfPage(p)));
      if (batch.length < 500) break;
      after = batch[batch.length - 1].slug;
    }
    for (let after: string | undefined; ; ) {
      const batch = await this.repository.listFragments(500, after);
      for (const f of batch) items.push(...this.itemsOf(recordOfFragment(f)));
      if (batch.length < 500) break;
      after = batch[batch.length - 1].key;
    }
    return { items };
  }

  private itemsOf(record: ContentRecord): PendingItem[] {
    const state = stateOf(record);
    if (!state.pending.length) return [];
    const { units } = unitsOf(record, this.config.sourceLocale);
    const source = new Map(units.map((u) => [u.unit, u.text]));
    const tracked = units.map((u) => ({ unit: u.unit, hash: unitHash(u.text), locales: [] }));
    return state.pending.map((p) => ({
      type: record.type,
      id: record.id,
      unit: p.unit,
      locale: p.locale,
      candidate: p.text,
      source: source.get(p.unit) ?? '',
      current: this.readerText(record, p.unit, p.locale),
      sourceChanged: isPendingStale(p, tracked),
      at: p.at,
    }));
  }

  private readerText(record: ContentRecord, unit: string, locale: string): string | null {
    const chain = contentChain(locale, this.config.fallbackLocale);
    let map: Readonly<Record<string, string>> | undefined;
    if (record.type === 'page') {
      const p = record.page;
      map = unit === 'title' ? p.title : unit === 'body' ? p.body : unit === 'seo.title' ? p.seo.title : unit === 'seo.description' ? p.seo.description : undefined;
    } else map = markerAt(record.fragment.data, unit)?._i18n;
    return pickText(map, chain)?.text ?? null;
  }

  async approve(req: ApproveRequest): Promise<{ type: ContentType; id: string; locale: string; approved: Array<{ unit: string; forced: boolean }> }> {
    const result = await this.outbox.transaction(async (session) => {
      const record = await this.load(req.type, req.id, session);
      const state = stateOf(record);
      const picked = state.pending.filter((p) => p.locale === req.locale && (req.unit === undefined || p.unit === req.unit));
      if (req.text !== undefined && picked.length > 1) {
        throw ContentException.invalid([{ field: 'text', problems: [`an edited text replaces one candidate: name its unit (${picked.map((p) => p.unit).join(', ')} wait in ${req.locale})`] }]);
      }
      const outcome = approvePending(state, req.locale, { ...(req.unit !== undefined ? { unit: req.unit } : {}), force: req.force === true });
      if (!outcome.ok && outcome.reason === 'none') throw ContentException.nothingPending(req.type, req.id, req.locale, req.unit);
      if (!outcome.ok) throw ContentException.staleCandidate(req.type, req.id, req.locale, (outcome.stale ?? []).map((p) => p.unit));
      const stale = new Set(outcome.approved.filter((p) => isPendingStale(p, state.units ?? [])).map((p) => p.unit));
      for (const p of outcome.approved) setUnitText(record, p.unit, p.locale, req.text ?? p.text);
      await this.save(record, outcome.state, session);
      return outcome.approved.map((p) => ({ unit: p.unit, forced: stale.has(p.unit) }));
    });
    if (req.type === 'page') this.cache.drop(req.id);
    return { type: req.type, id: req.id, locale: req.locale, approved: result };
  }

  async reject(req: { type: ContentType; id: string; locale: string; unit?: string }): Promise<{ type: ContentType; id: string; locale: string; rejected: number }> {
    const rejected = await this.outbox.transaction(async (session) => {
      const record = await this.load(req.type, req.id, session);
      const out = rejectPending(stateOf(record), req.locale, req.unit);
      if (!out.rejected) throw ContentException.nothingPending(req.type, req.id, req.locale, req.unit);
      await this.save(record, out.state, session, false);
      return out.rejected;
    });
    return { type: req.type, id: req.id, locale: req.locale, rejected };
  }

  /** The page as readers of `locale` would see it with every candidate held for that locale approved. */
  async preview(slug: string, locale: string): Promise<RenderedPage> {
    const page = await this.repository.findPage(slug);
    if (!page) throw ContentException.pageNotFound(slug);
    const record = { type: 'page' as const, id: slug, page };
    for (const p of page.translation.pending) if (p.locale === locale) setUnitText(record, p.unit, p.locale, p.text);
    return this.pages.render(record.page, locale);
  }

  private async load(type: ContentType, id: string, session: Parameters<ContentRepository['findPage']>[1]): Promise<ContentRecord> {
    if (type === 'page') {
      const p = await this.repository.findPage(id, session);
      if (!p) throw ContentException.pageNotFound(id);
      return recordOfPage(p);
    }
    const f = await this.repository.findFragment(id, session);
    if (!f) throw ContentException.fragmentNotFound(id);
    return recordOfFragment(f);
  }

  private async save(record: ContentRecord, state: TranslationState, session: NonNullable<Parameters<ContentRepository['findPage']>[1]>, announce = true): Promise<void> {
    if (record.type === 'page') {
      await this.repository.savePage({ ...record.page, translation: state }, session);
      if (announce) await this.outbox.pageChanged(session, record.id, 'updated', false);
    } else {
      await this.repository.saveFragment({ ...record.fragment, translation: state }, session);
      if (announce) await this.outbox.fragmentChanged(session, record.id, 'updated', false);
    }
  }
}
