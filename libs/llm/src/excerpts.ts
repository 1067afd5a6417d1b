/**
 * The one wire format of retrieved excerpts inside a system prompt, shared by the retrieval node
 * (which writes it) and the `local` provider (which reads it to answer extractively). A real model
 * just reads the text; the format is plain enough for it and strict enough to parse back.
 *
 *     <instructions, one per line>
 *     Excerpts:
 *     [1] <title>: <text on one line>
 *     [2] <title>: <text on one line>
 *
 * The block starts at the line `Excerpts:` and ends at the first line that is not an `[N]` line.
 * Titles have `: ` replaced by ` - ` and line breaks folded to spaces, so the first `: ` of an
 * excerpt line always ends its title.
 */

/** One numbered excerpt. */
export interface Excerpt {
  /** The number the answer cites, `[n]`. */
  n: number;
  title: string;
  text: string;
}

/** The line that opens the excerpt block. */
export const EXCERPTS_HEADER = 'Excerpts:';

/** Instruction lines the retrieval prompt uses; the `local` provider recognises them. */
export const EXCERPT_INSTRUCTIONS = {
  /** Before the block, always. */
  ground: 'Answer the question from the excerpts below. If they do not contain the answer, say so.',
  /** Citations on (`rag`): cite by number. */
  cite: 'Cite the excerpts you use by their number in square brackets, like [1].',
  /** Citations off (`rag-clean`): the sources travel beside the answer instead. */
  noMarkers: 'Do not write [N] citation markers in the answer; the sources are shown to the user separately.',
} as const;

/** Whether a prompt forbids inline `[N]` markers (the `noMarkers` line, or a similar human wording). */
export function forbidsMarkers(prompt: string): boolean {
  return /\b(?:do not|don't|never|without)\b[^.\n]{0,40}\[\s*n\s*\]/i.test(prompt) || /\bno\s+(?:inline\s+)?\[\s*n\s*\]/i.test(prompt);
}

/** Whitespace that `oneLine` would change: a run of two, or any whitespace but a plain space. */
const FOLDABLE = /\s\s|[^\S ]/;

function oneLine(text: string): string {
  // Most chunk texts are single-spaced already; the global replace would still rebuild them
  // word by word, the largest allocation of a retrieval step.
  return FOLDABLE.test(text) ? text.replace(/\s+/g, ' ').trim() : text.trim();
}

/** The excerpt lines (from `Excerpts:` on) for `excerpts`, numbered by their `n`. */
export function formatExcerptBlock(excerpts: readonly Excerpt[]): string {
  const lines = excerpts.map((e) => `[${e.n}] ${oneLine(e.title).replace(/:\s/g, ' - ').replace(/:$/, '') || 'Untitled'}: ${oneLine(e.text)}`);
  return [EXCERPTS_HEADER, ...lines].join('\n');
}

/**
 * A whole system message for `excerpts`: the grounding line, the citation line (`cite` or
 * `noMarkers` by `citations`), optional extra lines, then the block.
 */
export function formatExcerpts(excerpts: readonly Excerpt[], options: { citations?: boolean; instructions?: string[] } = {}): string {
  const citations = options.citations ?? true;
  return [EXCERPT_INSTRUCTIONS.ground, citations ? EXCERPT_INSTRUCTIONS.cite : EXCERPT_INSTRUCTIONS.noMarkers, ...(options.instructions ?? []), formatExcerptBlock(excerpts)].join('\n');
}

const LINE = /^\[(\d+)\]\s+(.*)$/;

/** The excerpts of a prompt written by `formatExcerpts` (every block, in order); empty when there is none. */
export function parseExcerpts(prompt: string): Excerpt[] {
  const out: Excerpt[] = [];
  let inBlock = false;
  for (const raw of prompt.split('\n')) {
    const line = raw.trim();
    if (line === EXCERPTS_HEADER) {
      inBlock = true;
      continue;
    }
    if (!inBlock) continue;
    const m = LINE.exec(line);
    if (!m) {
      inBlock = false;
      continue;
    }
    const rest = m[2];
    const cut = rest.indexOf(': ');
    const title = cut >= 0 ? rest.slice(0, cut).trim() : '';
    const text = (cut >= 0 ? rest.slice(cut + 2) : rest).trim();
    if (text) out.push({ n: Number(m[1]), title, text });
  }
  return out;
}
