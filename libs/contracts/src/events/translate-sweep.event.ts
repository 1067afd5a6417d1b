import { IsInt, IsNotEmpty, IsOptional, IsRFC3339, IsString, Min } from 'class-validator';

/**
 * Common payload of the two sweep events. The spec shows neither; a sweep carries no work list (the
 * consumers work from stored hashes), only when and by what it was fired, for logs and run timelines.
 */
abstract class SweepPayload {
  /** RFC 3339 time the scheduler fired (or an operator triggered) the sweep. */
  @IsRFC3339()
  firedAt!: string;

  /** Stable id of the scheduler entry, for example `i18n-translate-sweep`; absent on a manual trigger. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  scheduleId?: string;
}

/** Payload of `i18n.translate.sweep` (localization.md, automatic translation rule 9). */
export class I18nTranslateSweepPayload extends SweepPayload {}

/** Payload of `content.translate.sweep` (localization.md, settings rule 18). */
export class ContentTranslateSweepPayload extends SweepPayload {
  /** Overrides CONTENT_TRANSLATE_BUDGET for this sweep; 0 means no cap. */
  @IsOptional()
  @IsInt()
  @Min(0)
  budget?: number;
}
