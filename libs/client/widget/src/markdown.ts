/**
 * The Markdown subset the chat renders: paragraphs, headings (shown as bold lines), bullet and
 * numbered lists, fenced code blocks, and inline bold, italic, code and links. It parses to plain
 * data that the component turns into Lit templates, so model output only ever reaches the page as
 * text nodes: there is no HTML string, no innerHTML and therefore no sanitizer to keep current.
 */

export type Inline = string | { t: 'code'; s: string } | { t: 'b' | 'i'; c: Inline[] } | { t: 'a'; href: string; c: Inline[] };

export type Block = { t: 'p' | 'h'; c: Inline[][] } | { t: 'ul' | 'ol'; items: Inline[][] } | { t: 'pre'; s: string };

/** Link targets that may become anchors; anything else (javascript:, data:, relative) stays text. */
export function safeHref(url: string): string | undefined {
  return /^(https?:\/\/|mailto:)[^\s"'<>]+$/i.test(url) ? url : undefined;
}

// Underscore emphasis only at word edges (not inside snake_case or `window.__name`), as in CommonMark.
const INLINE = /`([^`\n]+)`|\*\*(.+?)\*\*|(?<![\w.])__(\S(?:.*?\S)?)__(?!\w)|\*(\S(?:.*?\S)?)\*|(?<![\w.])_(\S(?:.*?\S)?)_(?!\w)|\[([^\]\n]+)\]\(([^()\s]+)\)/;

/** Inline spans of one line. */
export function inline(text: string): Inline[] {
  const out: Inline[] = [];
  let rest = text;
  for (let m = INLINE.exec(rest); m; m = INLINE.exec(rest)) {
    if (m.index) out.push(rest.slice(0, m.index));
    if (m[1] !== undefined) out.push({ t: 'code', s: m[1] });
    else if (m[2] !== undefined || m[3] !== undefined) out.push({ t: 'b', c: inline(m[2] ?? m[3]) });
    else if (m[4] !== undefined || m[5] !== undefined) out.push({ t: 'i', c: inline(m[4] ?? m[5]) });
    else {
      const href = safeHref(m[7]);
      const label = inline(m[6]);
      if (href) out.push({ t: 'a', href, c: label });
      else out.push(...label);
    }
    rest = rest.slice(m.index + m[0].length);
  }
  if (rest) out.push(rest);
  return out;
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const HEADING = /^#{1,6}\s+(.*)$/;
const FENCE = /^\s*```/;

/** Blocks of a whole answer (a fence left open by a stream still arriving runs to the end). */
export function parseMarkdown(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ t: 'p', c: para.map(inline) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (FENCE.test(line)) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !FENCE.test(lines[i]); i++) code.push(lines[i]);
      blocks.push({ t: 'pre', s: code.join('\n') });
      continue;
    }
    const list = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : undefined;
    if (list) {
      flush();
      const items: Inline[][] = [];
      for (; i < lines.length && list.test(lines[i]); i++) items.push(inline(list.exec(lines[i])![1]));
      i--;
      blocks.push({ t: list === BULLET ? 'ul' : 'ol', items });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      blocks.push({ t: 'h', c: [inline(heading[1])] });
    } else if (line.trim()) para.push(line);
    else flush();
  }
  flush();
  return blocks;
}
