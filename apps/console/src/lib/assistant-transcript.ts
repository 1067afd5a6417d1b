/** A source under an assistant answer, as a link only when its address is http(s). */
export interface SourceLink {
  label: string;
  href?: string;
}

/**
 * The sources of a turn (`[{n?, title?, url?, score?}]`, any shape a flow wrote) as links the page
 * can show safely: labels are text, and only http(s) addresses become links (never javascript: or data:).
 */
export function sourceLinks(sources: unknown): SourceLink[] {
  if (!Array.isArray(sources)) return [];
  return sources.flatMap((s): SourceLink[] => {
    if (!s || typeof s !== 'object') return [];
    const o = s as Record<string, unknown>;
    const url = typeof o['url'] === 'string' ? o['url'] : undefined;
    const href = url && safeHttpUrl(url);
    const title = typeof o['title'] === 'string' && o['title'].trim() ? o['title'] : (url ?? '');
    if (!title) return [];
    const label = typeof o['n'] === 'number' ? `[${o['n']}] ${title}` : title;
    return [href ? { label, href } : { label }];
  });
}

/** The address when it is an absolute http(s) URL, else undefined. */
export function safeHttpUrl(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}
