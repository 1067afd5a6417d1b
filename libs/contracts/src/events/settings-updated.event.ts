import { ArrayNotEmpty, IsArray, IsNotEmpty, IsString } from 'class-validator';

/** Payload of `settings.updated` (issue 3): a module's stored settings changed. Never carries a value. */
export class SettingsUpdatedPayload {
  @IsString()
  @IsNotEmpty()
  module!: string;

  /** The keys whose stored value changed. */
  @IsArray()
  @ArrayNotEmpty()
  @IsString({ each: true })
  keys!: string[];
}
