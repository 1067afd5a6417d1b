import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_PRICE_TABLE, type PriceEntry, type PriceTable } from '@flowplane/llm';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';

interface PriceDoc extends StoreDocument {
  currency: string;
  prices: PriceEntry[];
  updatedAt: Date;
  updatedBy: string;
}

/** The price table as the admin routes show it. */
export interface PriceTableState extends PriceTable {
  /** True while no table was ever saved (the built-in default applies). */
  isDefault: boolean;
  updatedAt?: Date;
  updatedBy?: string;
}

const DOC_ID = 'current';
/** How long a replica trusts its copy; another replica's PUT shows up within this. */
const CACHE_MS = 5_000;

/**
 * The price table of the usage ledger, one document in `llm_prices`. Rows are priced when they
 * are recorded (from flow-runtime's own calls or from `llm.usage_recorded`), so a price change
 * applies to calls from then on and never rewrites history.
 */
@Injectable()
export class PriceTableService {
  private readonly docs: Collection<PriceDoc>;
  private cached?: { state: PriceTableState; until: number };

  constructor(@Inject(STORE) store: Store) {
    this.docs = store.collection<PriceDoc>('llm_prices');
  }

  async get(): Promise<PriceTableState> {
    const now = Date.now();
    if (this.cached && now < this.cached.until) return this.cached.state;
    const doc = await this.docs.findOne({ _id: DOC_ID });
    const state: PriceTableState = doc
      ? { currency: doc.currency, prices: doc.prices, isDefault: false, updatedAt: doc.updatedAt, updatedBy: doc.updatedBy }
      : { ...DEFAULT_PRICE_TABLE, isDefault: true };
    this.cached = { state, until: now + CACHE_MS };
    return state;
  }

  /** Replaces the whole table. */
  async put(table: PriceTable, by: string): Promise<PriceTableState> {
    const doc = { currency: table.currency, prices: table.prices.map(clean), updatedAt: new Date(), updatedBy: by };
    await this.docs.replaceOne({ _id: DOC_ID }, doc, { upsert: true });
    this.cached = undefined;
    return { currency: doc.currency, prices: doc.prices, isDefault: false, updatedAt: doc.updatedAt, updatedBy: by };
  }
}

function clean(p: PriceEntry): PriceEntry {
  const provider = p.providerId?.trim();
  return { ...(provider ? { providerId: provider } : {}), model: p.model.trim(), inputPerMillion: p.inputPerMillion, outputPerMillion: p.outputPerMillion };
}
