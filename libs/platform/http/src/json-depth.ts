/**
 * Nesting depth of JSON text, measured over raw bytes without parsing it.
 *
 * JSON.parse and recursive validators use the call stack per level, so a body nested a few
 * thousand levels deep overflows it; this scan is iterative and allocation-free, so it can run on
 * untrusted input before anything recursive sees it. It does not validate the JSON: brackets inside
 * strings (escapes included) are skipped, everything else is left to the real parser.
 * Multi-byte UTF-8 sequences never contain ASCII bytes, so scanning bytes is safe.
 */

/** Default maximum nesting of request JSON bodies (objects and arrays counted alike). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Incremental scanner: feed chunks in order, ask `exceeded` at any time. */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** True once the nesting went deeper than `max`; stays true. */
  exceeded = false;

  constructor(readonly max: number = MAX_JSON_DEPTH) {}

  /** Scans one chunk; returns true when the depth limit has been exceeded so far. */
  push(chunk: Uint8Array): boolean {
    if (this.exceeded) return true;
    let { depth, inString, escaped } = this;
    const max = this.max;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        if (++depth > max) {
          this.exceeded = true;
          return true;
        }
      } else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && depth > 0) depth--;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return false;
  }
}

/** True when the JSON text in `buf` nests objects/arrays deeper than `max` levels. */
export function jsonDepthExceeds(buf: Uint8Array | string, max: number = MAX_JSON_DEPTH): boolean {
  const bytes = typeof buf === 'string' ? Buffer.from(buf, 'utf8') : buf;
  return new JsonDepthScanner(max).push(bytes);
}

/** True for `application/json` and any `+json` media type (parameters such as charset ignored). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}
