/** One price of the table: per million prompt and completion tokens. */
export interface PriceEntry {
  /** Provider id the price applies to; absent or `*` means any provider. */
  providerId?: string;
  /** Exact model name, or a prefix ending in `*` (`gpt-4o*`); `*` alone matches every model. */
  model: string;
  inputPerMillion: number;
  outputPerMillion: number;
}

/** The price table: one currency for every entry. */
export interface PriceTable {
  /** ISO 4217 code (default `USD`). */
  currency: string;
  prices: PriceEntry[];
}

/** The cost of one call: priced, or `unpriced` when no entry matches (never zero by default). */
export type CallCost = { status: 'priced'; cost: number; currency: string } | { status: 'unpriced' };

/**
 * The table a fresh ledger starts with: the offline `local` provider costs nothing. Everything
 * else stays unpriced until an operator enters real prices (PUT /admin/llm/prices): shipping
 * vendor prices would make a ledger silently wrong the day they change.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = { currency: 'USD', prices: [{ providerId: 'local', model: '*', inputPerMillion: 0, outputPerMillion: 0 }] };

/** How specific an entry is for a call, or -1 when it does not match. */
function specificity(entry: PriceEntry, providerId: string, model: string): number {
  const provider = entry.providerId?.trim();
  let score = 0;
  if (provider && provider !== '*') {
    if (provider !== providerId) return -1;
    score += 1_000_000;
  }
  const pattern = entry.model.trim();
  if (pattern.endsWith('*')) {
    const prefix = pattern.slice(0, -1);
    if (!model.startsWith(prefix)) return -1;
    return score + prefix.length;
  }
  return pattern === model ? score + 500_000 : -1;
}

/** The most specific entry for (provider, model): a named provider over any, an exact model over a prefix, a longer prefix over a shorter. */
export function findPrice(table: PriceTable, providerId: string, model: string): PriceEntry | undefined {
  let best: PriceEntry | undefined;
  let bestScore = -1;
  for (const entry of table.prices) {
    const s = specificity(entry, providerId, model);
    if (s > bestScore) {
      best = entry;
      bestScore = s;
    }
  }
  return best;
}

/** Cost of a call from the table; `unpriced` when no entry matches. */
export function computeCost(table: PriceTable, providerId: string, model: string, usage: { promptTokens: number; completionTokens: number }): CallCost {
  const price = findPrice(table, providerId, model);
  if (!price) return { status: 'unpriced' };
  const cost = (usage.promptTokens * price.inputPerMillion + usage.completionTokens * price.outputPerMillion) / 1_000_000;
  // Twelve decimals: exact enough for sums of millions of calls, free of float noise in responses.
  return { status: 'priced', cost: Math.round(cost * 1e12) / 1e12, currency: table.currency };
}
