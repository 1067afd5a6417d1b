import { createHash } from 'node:crypto';

/**
 * The `source_hash` / `context_hash` of a text (automatic translation rule 3): SHA-256 hex of its
 * UTF-8 bytes. A machine translation whose stored fingerprint differs from its row's current source
 * text or note is stale; writers of machine translations must use this same function.
 */
export function fingerprint(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
