/** JSON Pointer (RFC 6901) helpers: issue paths are pointers, the empty string is the whole document. */

/** Escapes one reference token (`~` and `/`). */
export function escapePointerToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Decodes one reference token. */
export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Builds a pointer from unescaped tokens. */
export function jsonPointer(...tokens: Array<string | number>): string {
  return tokens.map((t) => '/' + escapePointerToken(t)).join('');
}

/** Splits a pointer into unescaped tokens (`''` gives `[]`). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map(unescapePointerToken);
}

/** True when `ancestor` is `pointer` itself or one of its parents. */
export function isPointerPrefix(ancestor: string, pointer: string): boolean {
  return ancestor === pointer || ancestor === '' || pointer.startsWith(ancestor + '/');
}
