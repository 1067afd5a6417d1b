import { MASK_TOKEN } from '@flowplane/contracts';
import type { ResolvedKind } from '../kinds/profile-kind.model';

/** A config with sensitive values replaced by the mask token, and which sensitive fields are set. */
export interface MaskedConfig {
  config: Record<string, unknown>;
  /** Keys of sensitive fields that hold a value, so a UI can show "set" without the value. */
  secretsSet: string[];
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * Masks the sensitive values of a config (rule 20). Without a kind (a profile of a kind no longer
 * declared) nothing is known to be harmless, so every value is masked.
 */
export function maskConfig(
  kind: ResolvedKind | undefined,
  config: Readonly<Record<string, unknown>>,
): MaskedConfig {
  const out: Record<string, unknown> = {};
  const secretsSet: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    const sensitive = kind ? kind.fieldMap.get(key)?.sensitive === true : true;
    if (sensitive && isSet(value)) {
      out[key] = MASK_TOKEN;
      if (kind) secretsSet.push(key);
    } else {
      out[key] = value;
    }
  }
  return { config: out, secretsSet };
}

/** Masks the sensitive values among resolved values, whichever layer supplied them. */
export function maskValues(
  kind: ResolvedKind,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return maskConfig(kind, values).config;
}
