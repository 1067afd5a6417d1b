/** Where a translation came from (automatic translation rule 1); absent for text of unknown origin. */
export type ProvenanceSource = 'machine' | 'human' | 'code' | 'seed';

/** One locale's provenance entry of a translation row. */
export interface ProvenanceEntry {
  source: ProvenanceSource;
  /** Who wrote it: a user id, a model or a tool. */
  by?: string;
  /** ISO time of the write. */
  at: string;
  /** Fingerprint of the source text a machine translation was made from. */
  source_hash?: string;
  /** Fingerprint of the translator note a machine translation was made with. */
  context_hash?: string;
  /** What the review gate said of a machine translation. */
  review?: Record<string, unknown>;
}

/** A candidate held (or rejected) by the review gate; never served. */
export interface PendingEntry {
  text: string;
  status: 'held' | 'rejected';
  /** The model that produced the candidate (its provenance `by` once approved). */
  by?: string;
  source_hash?: string;
  context_hash?: string;
  review?: Record<string, unknown>;
  at: string;
}

/** Creation and last-write times of one (namespace, key, locale) cell (catalog rule 9). */
export interface CellStamps {
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A translation row: one key of one namespace with every locale. Each (ns, key, locale) cell is one
 * message, whichever route writes it (admin messages, translation rows, report-keys, imports).
 */
export interface TranslationRow {
  id: string;
  /** Namespace; the empty string is the default bucket. */
  ns: string;
  key: string;
  /** Locale to text. */
  translations: Record<string, string>;
  provenance: Record<string, ProvenanceEntry>;
  pending: Record<string, PendingEntry>;
  /** Translator note injected into AI prompts. */
  context?: string;
  /** Modules (surfaces) that reported the key. */
  modules: string[];
  stamps: Record<string, CellStamps>;
  createdAt: Date;
  updatedAt: Date;
}

/** One message: a single (namespace, key, locale) cell of a translation row. */
export interface Message {
  ns: string;
  key: string;
  locale: string;
  value: string;
  provenance?: ProvenanceEntry;
  createdAt: Date;
  updatedAt: Date;
}

/** The address of a row. */
export interface RowAddress {
  ns: string;
  key: string;
}

/** One cell to write: a string sets it, null removes it (and its provenance). */
export interface CellWrite {
  locale: string;
  value: string | null;
  /** Provenance of a set cell; null clears it, undefined leaves none (rule 2: every write sets or clears it). */
  provenance?: ProvenanceEntry | null;
}

/** Rows of one page and where the next one starts. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
