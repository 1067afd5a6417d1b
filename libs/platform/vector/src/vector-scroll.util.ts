import type { VectorFilter, VectorScrolledPoint, VectorStore } from './vector-store.port';

export interface ScrollAllOptions {
  /** Points per request (default 256). */
  pageSize?: number;
  filter?: VectorFilter;
  /** Include payloads (default false: paging for ids is the common case). */
  withPayload?: boolean;
}

/**
 * Every (matching) point of an index, page by page in id order, following `nextOffset` until the
 * last page. Points written while paging may or may not be seen; none is seen twice.
 */
export async function* scrollPages(
  store: VectorStore,
  index: string,
  options: ScrollAllOptions = {},
): AsyncGenerator<VectorScrolledPoint[]> {
  const limit = options.pageSize ?? 256;
  let offset: VectorScrolledPoint['id'] | null = null;
  for (;;) {
    const page = await store.scroll(index, {
      limit,
      offset,
      filter: options.filter,
      withPayload: options.withPayload ?? false,
    });
    if (page.points.length) yield page.points;
    if (page.nextOffset === null) return;
    offset = page.nextOffset;
  }
}
