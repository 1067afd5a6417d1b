import { Injectable } from '@nestjs/common';
import { toInternalProfile, toProfileView } from '../domain/profile.presenter';
import type { Profile, ProfileAddress } from '../domain/profile.entity';
import type { InternalProfileDto } from '../dto/internal-profile.dto';
import type { ProfileViewDto } from '../dto/profile-view.dto';
import { KindRegistry } from '../kinds/kind.registry';
import { ProfileRepository } from '../persistence/profile.repository';
import { ProfilesException } from '../profiles.exception';

/** Profile reads: masked views for the admin API, the unmasked profile for other services. */
@Injectable()
export class ProfileQueries {
  constructor(
    private readonly kinds: KindRegistry,
    private readonly profiles: ProfileRepository,
  ) {}

  /** Every profile, masked. */
  async list(): Promise<ProfileViewDto[]> {
    return (await this.profiles.list()).map((p) => this.view(p));
  }

  /** Profiles of one kind, masked; 404 for an unknown kind. */
  async listOfKind(kindId: string): Promise<ProfileViewDto[]> {
    const kind = this.kinds.requireKind(kindId);
    return (await this.profiles.list({ kind: kind.id }))
      .filter((p) => p.module === kind.module)
      .map((p) => this.view(p));
  }

  /** One profile, masked; 404 for an unknown module, kind or id. */
  async get(address: ProfileAddress): Promise<ProfileViewDto> {
    return this.view(await this.require(address));
  }

  /** One profile, unmasked, for another service's resolver; 404 for an unknown module, kind or id. */
  async getInternal(address: ProfileAddress): Promise<InternalProfileDto> {
    return toInternalProfile(await this.require(address));
  }

  private async require(address: ProfileAddress): Promise<Profile> {
    this.kinds.require(address.module, address.kind);
    const profile = await this.profiles.find(address);
    if (!profile) throw ProfilesException.profileNotFound(address.module, address.kind, address.profileId);
    return profile;
  }

  private view(profile: Profile): ProfileViewDto {
    const kind = this.kinds.byId(profile.kind);
    return toProfileView(profile, kind?.module === profile.module ? kind : undefined);
  }
}
