import { ArrayNotEmpty, IsArray, IsIn, IsNotEmpty, IsOptional, IsString } from 'class-validator';

/** Why a translation input changed (localization.md, automatic translation rule 4). */
export const I18N_KEY_CHANGE_REASONS = ['added', 'source_changed', 'context_changed'] as const;
/** Reason of an `i18n.keys_changed` event. */
export type I18nKeyChangeReason = (typeof I18N_KEY_CHANGE_REASONS)[number];

/**
 * Payload of `i18n.keys_changed`, the translation work signal. The spec fixes `keys`; `ns` and `reason`
 * are additions that let a consumer scope its work. Never published on a translation write.
 */
export class I18nKeysChangedPayload {
  /** The keys whose translation inputs changed; read by the fill node as `payload.keys`. */
  @IsArray()
  @ArrayNotEmpty()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  keys!: string[];

  /** Namespace of the keys; absent or empty means the default bucket. */
  @IsOptional()
  @IsString()
  ns?: string;

  @IsOptional()
  @IsIn(I18N_KEY_CHANGE_REASONS)
  reason?: I18nKeyChangeReason;
}
