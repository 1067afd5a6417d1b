import { Injectable } from '@nestjs/common';
import type { VectorDistance } from '@flowplane/platform/vector';
import type { SearchDocument } from '../domain/search.types';

/**
 * An index owner's reindexer (spec rule 8b): everything the index should hold, in batches.
 * `dim`/`distance` are used when the index does not exist yet (default: the embedder's dimension
 * and `search.default_distance`).
 */
export interface SearchReindexer {
  /** Logical index name (without prefix). */
  index: string;
  /** The owning module, for listings and logs. */
  module: string;
  dim?: number;
  distance?: VectorDistance;
  documents(): AsyncIterable<SearchDocument[]>;
}

/**
 * A lifecycle consumer (spec rule 8a): on `topic` (`<entity>.created|updated|deleted`, payload
 * `{id}`), `rebuild(id)` returns the entity's document, or null when the entity is gone or no
 * longer public (the point is then deleted).
 */
export interface SearchLifecycleConsumer {
  topic: string;
  groupId: string;
  index: string;
  rebuild(entityId: string): Promise<SearchDocument | null>;
}

/**
 * What a module registers with search. `consumers` are registered only when `events` (the
 * module's events list) is given, and only those whose topic is in it.
 */
export interface SearchModuleRegistration {
  module: string;
  events?: readonly string[];
  consumers?: readonly SearchLifecycleConsumer[];
  reindexers?: readonly SearchReindexer[];
}

/** Reindexers by logical index name; one owner per index, the latest registration wins. */
@Injectable()
export class SearchOwners {
  private readonly reindexers = new Map<string, SearchReindexer>();

  setReindexer(r: SearchReindexer): void {
    this.reindexers.set(r.index, r);
  }

  removeReindexer(index: string, module: string): void {
    if (this.reindexers.get(index)?.module === module) this.reindexers.delete(index);
  }

  reindexerOf(index: string): SearchReindexer | undefined {
    return this.reindexers.get(index);
  }

  /** Reindexable logical index names, sorted. */
  reindexable(): Array<{ index: string; module: string }> {
    return [...this.reindexers.values()].map((r) => ({ index: r.index, module: r.module })).sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : 0));
  }
}
