import { Inject, Injectable } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument, StoreSession } from '@flowplane/platform/store';
import type { Fragment, Page, PageSeo, SeedMark } from '../domain/content.entity';
import type { LocaleMap } from '../domain/localized-text';
import { storedTimes } from '../../shared/stored-time';
import type { PendingTranslation, TranslationState, UnitState } from '../domain/translation-state';

interface StateDocument {
  translationReady?: boolean;
  sourceHash?: string | null;
  retranslate?: boolean;
  units?: UnitState[] | null;
  reviewRequired?: boolean;
  pending?: PendingTranslation[];
}

interface PageDocument extends StoreDocument {
  title: Record<string, string>;
  body: Record<string, string>;
  seo?: { title?: Record<string, string>; description?: Record<string, string> };
  translation?: StateDocument;
  seeded?: SeedMark | null;
  // Written on every save, but a record from an older version or written by hand may lack them.
  createdAt?: Date;
  updatedAt?: Date;
}

interface FragmentDocument extends StoreDocument {
  /**
   * `data` as serialized JSON: field names holding dots, names that are locale codes and deep
   * nesting round-trip on every store engine, and reading it back (JSON.parse) is already the copy
   * that a projection may change.
   */
  json: string;
  translation?: StateDocument;
  createdAt?: Date;
  updatedAt?: Date;
}

/**
 * Pages and fragments on the Store port: `i18n_content_pages` with the slug as `_id`,
 * `i18n_content_fragments` with the key as `_id`, both listed in id order.
 */
@Injectable()
export class ContentRepository {
  static readonly PAGES = 'i18n_content_pages';
  static readonly FRAGMENTS = 'i18n_content_fragments';
  private readonly pages: Collection<PageDocument>;
  private readonly fragments: Collection<FragmentDocument>;

  constructor(@Inject(STORE) store: Store) {
    this.pages = store.collection<PageDocument>(ContentRepository.PAGES);
    this.fragments = store.collection<FragmentDocument>(ContentRepository.FRAGMENTS);
  }

  async findPage(slug: string, session?: StoreSession): Promise<Page | null> {
    const doc = await this.pages.findOne({ _id: slug }, { session });
    return doc && toPage(doc);
  }

  /** Pages in slug order after `after`, at most `limit`. */
  async listPages(limit: number, after?: string): Promise<Page[]> {
    const docs = await this.pages.find(after === undefined ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit });
    return docs.map(toPage);
  }

  /** Every page's slug, last edit and texts, in slug order (the sitemap lists a page under the locales it has text in). */
  async sitemapPages(): Promise<Array<{ slug: string; updatedAt?: Date; title: LocaleMap; body: LocaleMap }>> {
    const docs = await this.pages.find({}, { sort: { _id: 1 }, projection: { _id: 1, updatedAt: 1, title: 1, body: 1 } });
    return docs.map((d) => ({ slug: d._id, ...storedTimes({ updatedAt: d.updatedAt }), title: map(d.title), body: map(d.body) }));
  }

  /** Inserts or replaces the page (the id is its slug). */
  async savePage(page: Page, session?: StoreSession): Promise<void> {
    const { slug, ...rest } = page;
    const { createdAt, updatedAt, ...fields } = rest;
    const doc: Omit<PageDocument, '_id'> = { ...fields, ...storedTimes({ createdAt, updatedAt }), seo: seoDoc(page.seo), seeded: page.seeded ?? null, translation: stateDoc(page.translation) };
    await this.pages.replaceOne({ _id: slug }, doc, { session, upsert: true });
  }

  async deletePage(slug: string, session?: StoreSession): Promise<boolean> {
    return (await this.pages.deleteOne({ _id: slug }, { session })).deletedCount > 0;
  }

  async findFragment(key: string, session?: StoreSession): Promise<Fragment | null> {
    const doc = await this.fragments.findOne({ _id: key }, { session });
    return doc && toFragment(doc);
  }

  /** The stored JSON of a fragment's data with its update time, unparsed (the public read parses it once). */
  async fragmentJson(key: string): Promise<{ json: string; updatedAt?: Date } | null> {
    const doc = await this.fragments.findOne({ _id: key }, { projection: { json: 1, updatedAt: 1 } });
    return doc && { json: doc.json, ...storedTimes({ updatedAt: doc.updatedAt }) };
  }

  async listFragments(limit: number, after?: string): Promise<Fragment[]> {
    const docs = await this.fragments.find(after === undefined ? {} : { _id: { $gt: after } }, { sort: { _id: 1 }, limit });
    return docs.map(toFragment);
  }

  async saveFragment(fragment: Fragment, session?: StoreSession): Promise<void> {
    const doc: Omit<FragmentDocument, '_id'> = {
      json: JSON.stringify(fragment.data),
      translation: stateDoc(fragment.translation),
      ...storedTimes({ createdAt: fragment.createdAt, updatedAt: fragment.updatedAt }),
    };
    await this.fragments.replaceOne({ _id: fragment.key }, doc, { session, upsert: true });
  }

  async deleteFragment(key: string, session?: StoreSession): Promise<boolean> {
    return (await this.fragments.deleteOne({ _id: key }, { session })).deletedCount > 0;
  }
}

function seoDoc(seo: PageSeo): PageDocument['seo'] {
  return { ...(seo.title ? { title: { ...seo.title } } : {}), ...(seo.description ? { description: { ...seo.description } } : {}) };
}

function stateDoc(s: TranslationState): StateDocument {
  return {
    translationReady: s.translationReady,
    sourceHash: s.sourceHash ?? null,
    retranslate: s.retranslate,
    // null keeps "written before units existed" apart from "no units" across engines.
    units: s.units ?? null,
    reviewRequired: s.reviewRequired,
    pending: s.pending,
  };
}

function toState(d: StateDocument | undefined): TranslationState {
  return {
    translationReady: d?.translationReady === true,
    ...(typeof d?.sourceHash === 'string' ? { sourceHash: d.sourceHash } : {}),
    retranslate: d?.retranslate === true,
    ...(Array.isArray(d?.units) ? { units: d.units.map((u) => ({ unit: u.unit, hash: u.hash, locales: [...(u.locales ?? [])] })) } : {}),
    reviewRequired: d?.reviewRequired === true,
    pending: Array.isArray(d?.pending) ? d.pending.map((p) => ({ ...p })) : [],
  };
}

const map = (m: unknown): LocaleMap => (m && typeof m === 'object' ? { ...(m as Record<string, string>) } : {});

function toPage(d: PageDocument): Page {
  const seo: PageSeo = {};
  if (d.seo?.title) seo.title = map(d.seo.title);
  if (d.seo?.description) seo.description = map(d.seo.description);
  return {
    slug: d._id,
    title: map(d.title),
    body: map(d.body),
    seo,
    translation: toState(d.translation),
    ...(d.seeded ? { seeded: { template: d.seeded.template, prose: d.seeded.prose } } : {}),
    ...storedTimes({ createdAt: d.createdAt, updatedAt: d.updatedAt }),
  };
}

function toFragment(d: FragmentDocument): Fragment {
  return { key: d._id, data: JSON.parse(d.json) as unknown, translation: toState(d.translation), ...storedTimes({ createdAt: d.createdAt, updatedAt: d.updatedAt }) };
}
