import { MASK_TOKEN } from '@flowplane/contracts';
import type { InternalProfileDto } from '../dto/internal-profile.dto';
import type { ProfileFieldViewDto, ProfileKindViewDto } from '../dto/profile-kind-view.dto';
import type { ProfileViewDto } from '../dto/profile-view.dto';
import type { LiveOptions } from '../kinds/live-options.client';
import { liveSourceOf, type ResolvedKind } from '../kinds/profile-kind.model';
import { maskConfig } from './profile.masking';
import type { Profile } from './profile.entity';

/** A profile for the admin API: sensitive values masked, `secretsSet` naming the set ones. */
export function toProfileView(profile: Profile, kind: ResolvedKind | undefined): ProfileViewDto {
  const masked = maskConfig(kind, profile.config);
  return {
    module: profile.module,
    kind: profile.kind,
    profileId: profile.profileId,
    name: profile.name,
    ...(profile.description !== undefined ? { description: profile.description } : {}),
    config: masked.config,
    secretsSet: masked.secretsSet,
    createdAt: profile.createdAt.toISOString(),
    updatedAt: profile.updatedAt.toISOString(),
  };
}

/** A profile for another service's resolver: unmasked. */
export function toInternalProfile(profile: Profile): InternalProfileDto {
  return {
    module: profile.module,
    kind: profile.kind,
    profileId: profile.profileId,
    name: profile.name,
    ...(profile.description !== undefined ? { description: profile.description } : {}),
    config: profile.config,
    updatedAt: profile.updatedAt.toISOString(),
  };
}

/** A kind with its field schema; live options filled in, or marked unavailable with the reason. */
export function toKindView(kind: ResolvedKind, live: ReadonlyMap<string, LiveOptions>): ProfileKindViewDto {
  return {
    id: kind.id,
    module: kind.module,
    name: kind.name,
    ...(kind.description !== undefined ? { description: kind.description } : {}),
    ...(kind.icon !== undefined ? { icon: kind.icon } : {}),
    fields: kind.fields.map((f) => {
      const view: ProfileFieldViewDto = {
        key: f.key,
        label: f.label,
        type: f.type,
        required: f.required,
        sensitive: f.sensitive,
        overridable: f.overridable,
      };
      if (f.endpoint) view.endpoint = true;
      if (f.description !== undefined) view.description = f.description;
      if (f.default !== undefined) view.default = f.sensitive ? MASK_TOKEN : f.default;
      if (f.env_var !== undefined) view.env_var = f.env_var;
      if (f.options !== undefined) view.options = f.options;
      if (f.options_ref !== undefined) view.options_ref = f.options_ref;
      const options = liveSourceOf(f) ? live.get(f.key) : undefined;
      if (options?.available) view.options = options.options;
      else if (options) {
        view.optionsUnavailable = true;
        view.optionsUnavailableReason = options.reason;
      }
      if (f.setting_ref) view.setting_ref = f.setting_ref.raw;
      return view;
    }),
  };
}
