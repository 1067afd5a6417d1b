import { IsIn, IsNotEmpty, IsString } from 'class-validator';

/** What a profile write did. */
export const PROFILE_WRITE_ACTIONS = ['created', 'updated', 'deleted'] as const;
/** A profile write action. */
export type ProfileWriteAction = (typeof PROFILE_WRITE_ACTIONS)[number];

/**
 * Payload of `profiles.updated`. The spec leaves the payload open ("not shown"); every worker only drops
 * its cache, so the payload names the (module, kind, id) address of the written profile, which lets a
 * worker evict one entry instead of all. Sensitive values never travel on the bus.
 */
export class ProfilesUpdatedPayload {
  @IsString()
  @IsNotEmpty()
  module!: string;

  @IsString()
  @IsNotEmpty()
  kind!: string;

  @IsString()
  @IsNotEmpty()
  profileId!: string;

  /** `created` also covers upserts of a new id and duplicates. */
  @IsIn(PROFILE_WRITE_ACTIONS)
  action!: ProfileWriteAction;
}
