import { DuplicateKeyError } from '@flowplane/platform/store';

/** A unique-index violation, from any store engine. */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof DuplicateKeyError || (error as { code?: unknown } | null)?.code === 'DUPLICATE_KEY';
}
