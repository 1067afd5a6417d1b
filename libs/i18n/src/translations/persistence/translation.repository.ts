import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import { type Collection, DuplicateKeyError, type Filter, type Store, type StoreDocument, type StoreSession, type Update } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';
import type { CellStamps, CellWrite, Message, PendingEntry, ProvenanceEntry, RowAddress, TranslationRow } from '../domain/translation-row.entity';

interface RowDocument extends StoreDocument {
  ns: string;
  key: string;
  translations?: Record<string, string>;
  provenance?: Record<string, ProvenanceEntry>;
  pending?: Record<string, PendingEntry>;
  context?: string | null;
  modules?: string[];
  stamps?: Record<string, CellStamps>;
  createdAt: Date;
  updatedAt: Date;
}

/** Filters of a row listing; every one optional. */
export interface RowFilter {
  /** Exact namespace; undefined means every namespace, '' the default one. */
  ns?: string;
  /** Keys starting with this. */
  prefix?: string;
  /** Case-insensitive text found in the key, the note or any translation. */
  q?: string;
  /** Only rows without a translation in this locale. */
  missing?: string;
  /** Only rows with a translation in this locale. */
  hasLocale?: string;
  /** Start: rows after this address in (ns, key) order (exclusive unless `afterInclusive`). */
  after?: RowAddress;
  afterInclusive?: boolean;
}

/** What a cell write did to the row. */
export interface CellWriteResult {
  row: TranslationRow;
  /** True when the row did not exist before. */
  created: boolean;
  /** Locales whose text changed (set to another text, added or removed). */
  changed: string[];
  /** Text of every touched locale before the write (undefined when it had none). */
  before: Record<string, string | undefined>;
}

const ORDER = { ns: 1, key: 1 } as const;

/**
 * Translation rows on the Store port: collection I18N_COLLECTION (`translations`), one document per
 * (namespace, key), unique on it, holding every locale's text in `translations`, so (namespace, key,
 * locale) is unique by construction (catalog rules 1 and 9). Locale codes are field names here, which
 * is why they are restricted to letters, digits, `-` and `_` before they reach the repository.
 */
@Injectable()
export class TranslationRepository implements OnModuleInit {
  private readonly rows: Collection<RowDocument>;
  private indexed?: Promise<unknown>;

  constructor(
    @Inject(STORE) store: Store,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {
    this.rows = store.collection<RowDocument>(config.collection);
  }

  async onModuleInit(): Promise<void> {
    if (this.config.enabled) await this.ensureIndexes();
  }

  /** Creates the unique (ns, key) index (idempotent). */
  ensureIndexes(): Promise<unknown> {
    return (this.indexed ??= this.rows.createIndex({ keys: ORDER, name: 'translation_address', unique: true }));
  }

  async find(address: RowAddress, session?: StoreSession): Promise<TranslationRow | null> {
    const doc = await this.rows.findOne({ ns: address.ns, key: address.key }, { session });
    return doc && toEntity(doc);
  }

  /** Rows of these keys of one namespace, by key. */
  async findMany(ns: string, keys: string[], session?: StoreSession): Promise<Map<string, TranslationRow>> {
    const out = new Map<string, TranslationRow>();
    if (!keys.length) return out;
    for (const doc of await this.rows.find({ ns, key: { $in: keys } }, { session })) out.set(doc.key, toEntity(doc));
    return out;
  }

  /** Up to `limit` rows matching the filter, sorted by namespace and key. */
  async list(filter: RowFilter, limit: number): Promise<TranslationRow[]> {
    const out: TranslationRow[] = [];
    if (limit <= 0) return out;
    const q = filter.q?.toLowerCase();
    const cursor = this.rows.cursor(storeFilter(filter), { sort: ORDER, batchSize: Math.min(1000, limit * 2) });
    try {
      for await (const doc of cursor) {
        if (q !== undefined && !matchesText(doc, q)) continue;
        out.push(toEntity(doc));
        if (out.length >= limit) break;
      }
    } finally {
      await cursor.close();
    }
    return out;
  }

  /** Every row of a namespace (or of all), sorted; for exports and coverage. */
  async all(ns?: string): Promise<TranslationRow[]> {
    const docs = await this.rows.find(ns === undefined ? {} : { ns }, { sort: ORDER });
    return docs.map(toEntity);
  }

  /** Namespaces that hold at least one row, sorted. */
  async namespaces(): Promise<string[]> {
    const docs = await this.rows.find({}, { projection: { ns: 1 } });
    return [...new Set(docs.map((d) => d.ns))].sort();
  }

  /** The raw texts of one (namespace, locale) bucket: key to text, no fallback. */
  async bucket(ns: string, locale: string): Promise<Map<string, string>> {
    const field = `translations.${locale}`;
    const docs = await this.rows.find({ ns, [field]: { $exists: true } }, { projection: { key: 1, [field]: 1 } });
    const out = new Map<string, string>();
    for (const d of docs) {
      const v = d.translations?.[locale];
      if (typeof v === 'string') out.set(d.key, v);
    }
    return out;
  }

  /** Cells (messages) of the rows matching `filter`, optionally of one locale, in (ns, key, locale) order. */
  async messages(filter: RowFilter & { locale?: string; afterLocale?: string }, limit: number): Promise<Message[]> {
    const out: Message[] = [];
    const q = filter.q?.toLowerCase();
    const cursor = this.rows.cursor(storeFilter({ ...filter, hasLocale: filter.locale ?? filter.hasLocale, afterInclusive: filter.afterLocale !== undefined }), { sort: ORDER, batchSize: 500 });
    try {
      for await (const doc of cursor) {
        const locales = Object.keys(doc.translations ?? {}).sort();
        for (const locale of locales) {
          if (filter.locale !== undefined && locale !== filter.locale) continue;
          if (filter.after && filter.afterLocale !== undefined && doc.ns === filter.after.ns && doc.key === filter.after.key && locale <= filter.afterLocale) continue;
          const value = doc.translations![locale];
          if (q !== undefined && !doc.key.toLowerCase().includes(q) && !value.toLowerCase().includes(q)) continue;
          out.push(toMessage(doc, locale));
          if (out.length >= limit) return out;
        }
      }
    } finally {
      await cursor.close();
    }
    return out;
  }

  /**
   * Sets or removes cells of one row in one update, creating the row when absent. Every touched
   * locale's provenance is set or cleared in the same update (automatic translation rule 2), its
   * pending entry is cleared (rule 6: a live write releases it), `updatedAt` of the cell is set on
   * every write and `createdAt` only when the cell appears (catalog rule 9).
   */
  async writeCells(address: RowAddress, cells: CellWrite[], now: Date, session?: StoreSession): Promise<CellWriteResult> {
    const existing = await this.rows.findOne({ ns: address.ns, key: address.key }, { session });
    const $set: Record<string, unknown> = { updatedAt: now };
    const $unset: Record<string, ''> = {};
    const before: Record<string, string | undefined> = {};
    const changed: string[] = [];
    for (const c of cells) {
      const old = existing?.translations?.[c.locale];
      before[c.locale] = old;
      $unset[`pending.${c.locale}`] = '';
      if (c.value === null) {
        if (old !== undefined) changed.push(c.locale);
        $unset[`translations.${c.locale}`] = '';
        $unset[`provenance.${c.locale}`] = '';
        $unset[`stamps.${c.locale}`] = '';
        continue;
      }
      if (old !== c.value) changed.push(c.locale);
      $set[`translations.${c.locale}`] = c.value;
      if (c.provenance) $set[`provenance.${c.locale}`] = c.provenance;
      else $unset[`provenance.${c.locale}`] = '';
      $set[`stamps.${c.locale}.updatedAt`] = now;
      $set[`stamps.${c.locale}.createdAt`] = existing?.stamps?.[c.locale]?.createdAt ?? now;
    }
    const update: Update = { $set, $setOnInsert: { createdAt: now, modules: [] } };
    if (!existing) {
      // A new row: `$unset` of absent paths is pointless and the insert must not name them.
      for (const k of Object.keys($unset)) delete $unset[k];
    }
    if (Object.keys($unset).length) update.$unset = $unset;
    await this.rows.updateOne({ ns: address.ns, key: address.key }, update, { upsert: true, session });
    const doc = await this.rows.findOne({ ns: address.ns, key: address.key }, { session });
    return { row: toEntity(doc!), created: !existing, changed, before };
  }

  /**
   * Removes one cell; drops the row when nothing is left on it (no text, note, module or pending
   * entry). False when the cell did not exist.
   */
  async deleteCell(address: RowAddress, locale: string, now: Date, session?: StoreSession): Promise<boolean> {
    const field = `translations.${locale}`;
    const { matchedCount } = await this.rows.updateOne(
      { ns: address.ns, key: address.key, [field]: { $exists: true } },
      { $unset: { [field]: '', [`provenance.${locale}`]: '', [`stamps.${locale}`]: '', [`pending.${locale}`]: '' }, $set: { updatedAt: now } },
      { session },
    );
    if (!matchedCount) return false;
    const doc = await this.rows.findOne({ ns: address.ns, key: address.key }, { session });
    if (doc && isEmptyRow(doc)) await this.rows.deleteOne({ _id: doc._id, updatedAt: doc.updatedAt }, { session });
    return true;
  }

  /**
   * Inserts a row when its address is free (report-keys: the text is write-once). Resolves true when
   * this call created it.
   */
  async insertIfAbsent(
    address: RowAddress,
    init: { translations: Record<string, string>; provenance: Record<string, ProvenanceEntry>; context?: string; modules: string[] },
    now: Date,
    session?: StoreSession,
  ): Promise<boolean> {
    const stamps: Record<string, CellStamps> = {};
    for (const locale of Object.keys(init.translations)) stamps[locale] = { createdAt: now, updatedAt: now };
    const result = await this.rows.updateOne(
      { ns: address.ns, key: address.key },
      {
        $setOnInsert: {
          translations: init.translations,
          provenance: init.provenance,
          pending: {},
          ...(init.context !== undefined ? { context: init.context } : {}),
          modules: init.modules,
          stamps,
          createdAt: now,
          updatedAt: now,
        },
      },
      { upsert: true, session },
    );
    return result.upsertedId !== undefined;
  }

  /**
   * Inserts the rows of `ns` whose keys do not exist yet, in one write where nobody races it (one
   * round trip instead of one a key: a seed of hundreds of keys on a remote store); resolves the
   * keys it inserted. A concurrent writer of one of the keys (another replica seeding) makes it
   * fall back to inserting key by key, which leaves every existing row as it is.
   */
  async insertAllAbsent(
    ns: string,
    rows: Array<{ key: string; translations: Record<string, string>; provenance: Record<string, ProvenanceEntry>; modules: string[] }>,
    now: Date,
    session?: StoreSession,
  ): Promise<string[]> {
    const existing = await this.findMany(ns, rows.map((r) => r.key), session);
    const missing = rows.filter((r) => !existing.has(r.key));
    if (!missing.length) return [];
    const doc = (r: (typeof rows)[number]): Omit<RowDocument, '_id'> => {
      const stamps: Record<string, CellStamps> = {};
      for (const locale of Object.keys(r.translations)) stamps[locale] = { createdAt: now, updatedAt: now };
      return { ns, key: r.key, translations: r.translations, provenance: r.provenance, pending: {}, modules: r.modules, stamps, createdAt: now, updatedAt: now };
    };
    try {
      await this.rows.insertMany(missing.map(doc), { session });
      return missing.map((r) => r.key);
    } catch (e) {
      if (!(e instanceof DuplicateKeyError)) throw e;
      const created: string[] = [];
      for (const r of missing) {
        if (await this.insertIfAbsent({ ns, key: r.key }, r, now, session)) created.push(r.key);
      }
      // A partial first write (an engine that inserts one by one) inserted some rows before the
      // collision: they carry this call's time.
      const mine = await this.findMany(ns, missing.map((r) => r.key), session);
      for (const [key, row] of mine) if (!created.includes(key) && row.createdAt?.getTime?.() === now.getTime()) created.push(key);
      return created;
    }
  }

  /** Sets (or with null clears) the translator note; false when the row is absent or the note is unchanged. */
  async setContext(address: RowAddress, context: string | null, now: Date, session?: StoreSession): Promise<boolean> {
    const filter: Filter = { ns: address.ns, key: address.key, context: context === null ? { $exists: true } : { $ne: context } };
    const update: Update = context === null ? { $unset: { context: '' }, $set: { updatedAt: now } } : { $set: { context, updatedAt: now } };
    const { modifiedCount } = await this.rows.updateOne(filter, update, { session });
    return modifiedCount > 0;
  }

  /** Adds modules to a row's list (idempotent); resolves how many were new. */
  async addModules(address: RowAddress, modules: string[], session?: StoreSession): Promise<number> {
    if (!modules.length) return 0;
    const doc = await this.rows.findOne({ ns: address.ns, key: address.key }, { session, projection: { modules: 1 } });
    if (!doc) return 0;
    const have = new Set(doc.modules ?? []);
    const added = [...new Set(modules)].filter((m) => !have.has(m));
    if (!added.length) return 0;
    await this.rows.updateOne({ ns: address.ns, key: address.key }, { $addToSet: { modules: { $each: added } } }, { session });
    return added.length;
  }

  /** Rows of these keys, of one namespace or (ns undefined) of every one, sorted by namespace and key. */
  async findByKeys(keys: readonly string[], ns?: string): Promise<TranslationRow[]> {
    if (!keys.length) return [];
    const filter: Filter = { key: { $in: [...new Set(keys)] } };
    if (ns !== undefined) filter.ns = ns;
    return (await this.rows.find(filter, { sort: ORDER })).map(toEntity);
  }

  /** Rows whose `sourceLocale` text is one of `texts` (translation memory candidates), in chunks. */
  async findBySourceTexts(sourceLocale: string, texts: readonly string[]): Promise<TranslationRow[]> {
    const unique = [...new Set(texts)];
    const out: TranslationRow[] = [];
    for (let i = 0; i < unique.length; i += 500) {
      const docs = await this.rows.find({ [`translations.${sourceLocale}`]: { $in: unique.slice(i, i + 500) } });
      for (const d of docs) out.push(toEntity(d));
    }
    return out;
  }

  /** Up to `limit` rows holding a pending (held or rejected) entry, after `after`, sorted by namespace and key. */
  async listPending(filter: { ns?: string; after?: RowAddress }, limit: number): Promise<TranslationRow[]> {
    const out: TranslationRow[] = [];
    if (limit <= 0) return out;
    // Pending entries are few and keyed by locale, which a filter cannot test for "any key": scan.
    const cursor = this.rows.cursor(storeFilter(filter), { sort: ORDER, batchSize: 500 });
    try {
      for await (const doc of cursor) {
        if (!Object.keys(doc.pending ?? {}).length) continue;
        out.push(toEntity(doc));
        if (out.length >= limit) break;
      }
    } finally {
      await cursor.close();
    }
    return out;
  }

  /**
   * Compare-and-set of one cell: writes `value` with its provenance in one update (rule 2) and clears
   * the locale's pending entry (rule 6), only while the cell, its provenance and its pending entry are
   * still as `expected` (what the writer read). False when somebody else wrote the cell meanwhile, so
   * of two concurrent writers exactly one wins and no provenance is lost.
   */
  async setCellIf(
    address: RowAddress,
    locale: string,
    expected: CellExpectation,
    value: string,
    provenance: ProvenanceEntry,
    now: Date,
    session?: StoreSession,
  ): Promise<boolean> {
    const { matchedCount } = await this.rows.updateOne(
      { ...expectationFilter(address, locale, expected) },
      {
        $set: {
          [`translations.${locale}`]: value,
          [`provenance.${locale}`]: provenance,
          [`stamps.${locale}.updatedAt`]: now,
          [`stamps.${locale}.createdAt`]: expected.createdAt ?? now,
          updatedAt: now,
        },
        ...(expected.pendingAt !== undefined ? { $unset: { [`pending.${locale}`]: '' } } : {}),
      },
      { session },
    );
    return matchedCount > 0;
  }

  /** Compare-and-set of one locale's pending entry (hold, reject): only while the cell is still as `expected`. */
  async setPendingIf(address: RowAddress, locale: string, expected: CellExpectation, entry: PendingEntry, now: Date, session?: StoreSession): Promise<boolean> {
    const { matchedCount } = await this.rows.updateOne(
      expectationFilter(address, locale, expected),
      { $set: { [`pending.${locale}`]: entry, updatedAt: now } },
      { session },
    );
    return matchedCount > 0;
  }

  /** Sets the review gate's pending entry of one locale (used by the review workflow). */
  async setPending(address: RowAddress, locale: string, entry: PendingEntry | null, now: Date, session?: StoreSession): Promise<boolean> {
    const field = `pending.${locale}`;
    const update: Update = entry === null ? { $unset: { [field]: '' }, $set: { updatedAt: now } } : { $set: { [field]: entry, updatedAt: now } };
    const { matchedCount } = await this.rows.updateOne({ ns: address.ns, key: address.key }, update, { session });
    return matchedCount > 0;
  }
}

/** What a conditional write expects of one cell: its text, its provenance's `at` and its pending entry's `at` (undefined: absent). */
export interface CellExpectation {
  text?: string;
  provenanceAt?: string;
  pendingAt?: string;
  /** Creation time of the cell, kept on a replacing write (catalog rule 9). */
  createdAt?: Date;
}

/** The expectation of `locale` read from a row. */
export function expectationOf(row: TranslationRow, locale: string): CellExpectation {
  const e: CellExpectation = {};
  if (row.translations[locale] !== undefined) e.text = row.translations[locale];
  if (row.provenance[locale]) e.provenanceAt = row.provenance[locale].at;
  if (row.pending[locale]) e.pendingAt = row.pending[locale].at;
  if (row.stamps[locale]) e.createdAt = row.stamps[locale].createdAt;
  return e;
}

function expectationFilter(address: RowAddress, locale: string, e: CellExpectation): Filter {
  const absent = { $exists: false };
  return {
    ns: address.ns,
    key: address.key,
    [`translations.${locale}`]: e.text === undefined ? absent : e.text,
    [`provenance.${locale}.at`]: e.provenanceAt === undefined ? absent : e.provenanceAt,
    [`pending.${locale}.at`]: e.pendingAt === undefined ? absent : e.pendingAt,
  };
}

function storeFilter(f: RowFilter): Filter {
  const and: Filter[] = [];
  if (f.ns !== undefined) and.push({ ns: f.ns });
  if (f.prefix) and.push({ key: { $regex: `^${escapeRegex(f.prefix)}` } });
  if (f.missing) and.push({ [`translations.${f.missing}`]: { $exists: false } });
  if (f.hasLocale) and.push({ [`translations.${f.hasLocale}`]: { $exists: true } });
  if (f.after) {
    and.push({ $or: [{ ns: { $gt: f.after.ns } }, { ns: f.after.ns, key: { [f.afterInclusive ? '$gte' : '$gt']: f.after.key } }] });
  }
  return and.length === 0 ? {} : and.length === 1 ? and[0] : { $and: and };
}

function matchesText(doc: RowDocument, q: string): boolean {
  // Rows written by older imports or by hand may hold a key or a note that is not a string: never
  // let one fail a listing.
  if (typeof doc.key === 'string' && doc.key.toLowerCase().includes(q)) return true;
  if (typeof doc.context === 'string' && doc.context.toLowerCase().includes(q)) return true;
  return Object.values(doc.translations ?? {}).some((v) => typeof v === 'string' && v.toLowerCase().includes(q));
}

function isEmptyRow(doc: RowDocument): boolean {
  return (
    !Object.keys(doc.translations ?? {}).length &&
    !Object.keys(doc.pending ?? {}).length &&
    !doc.context &&
    !(doc.modules ?? []).length
  );
}

function toEntity(doc: RowDocument): TranslationRow {
  const row: TranslationRow = {
    id: doc._id,
    ns: doc.ns,
    key: doc.key,
    translations: { ...(doc.translations ?? {}) },
    provenance: { ...(doc.provenance ?? {}) },
    pending: { ...(doc.pending ?? {}) },
    modules: [...(doc.modules ?? [])],
    stamps: Object.fromEntries(
      Object.entries(doc.stamps ?? {}).map(([l, s]) => [l, { createdAt: new Date(s.createdAt), updatedAt: new Date(s.updatedAt) }]),
    ),
    createdAt: new Date(doc.createdAt),
    updatedAt: new Date(doc.updatedAt),
  };
  // Stores may hand back null for a field written as undefined.
  if (typeof doc.context === 'string') row.context = doc.context;
  return row;
}

function toMessage(doc: RowDocument, locale: string): Message {
  const stamps = doc.stamps?.[locale];
  const m: Message = {
    ns: doc.ns,
    key: doc.key,
    locale,
    value: doc.translations![locale],
    createdAt: new Date(stamps?.createdAt ?? doc.createdAt),
    updatedAt: new Date(stamps?.updatedAt ?? doc.updatedAt),
  };
  const p = doc.provenance?.[locale];
  if (p) m.provenance = p;
  return m;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
