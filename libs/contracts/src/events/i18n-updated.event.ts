import { IsArray, IsBoolean, IsOptional, IsString } from 'class-validator';

/**
 * Payload of `i18n.updated`, the per-instance cache broadcast (localization.md, catalog rule 7). The spec
 * does not show it; it names the (namespace, locale) bucket that changed so peers evict just that bucket,
 * or sets `all` when every bucket must go. It must never be used to trigger translation work.
 */
export class I18nUpdatedPayload {
  /** Namespace of the changed bucket; the empty string is the default namespace. */
  @IsOptional()
  @IsString()
  ns?: string;

  /** Locale of the changed bucket. */
  @IsOptional()
  @IsString()
  locale?: string;

  /** Keys written, for consumers that keep finer-grained caches. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  keys?: string[];

  /** True when every bucket must be dropped (InvalidateAll). */
  @IsBoolean()
  all!: boolean;

  /** Id of the instance that wrote, so it can ignore its own echo. */
  @IsOptional()
  @IsString()
  instanceId?: string;
}
