import { Injectable } from '@nestjs/common';
import { applyConfigWrite } from '../domain/profile-config.validator';
import { toProfileView } from '../domain/profile.presenter';
import type { ProfileAddress } from '../domain/profile.entity';
import type { ProfileViewDto } from '../dto/profile-view.dto';
import type { UpdateProfileDto } from '../dto/update-profile.dto';
import { KindRegistry } from '../kinds/kind.registry';
import { LiveOptionsClient } from '../kinds/live-options.client';
import { ProfileRepository } from '../persistence/profile.repository';
import { ProfilesOutbox } from '../persistence/profiles.outbox';
import { ProfilesException } from '../profiles.exception';

/**
 * `PUT /admin/profiles/{module}/{kind}/{id}`: changes what the body names. Config keys are merged
 * over the stored config (an empty string or null clears one, the mask token keeps a stored secret);
 * an empty description removes it. Announces `updated`.
 */
@Injectable()
export class UpdateProfileUseCase {
  constructor(
    private readonly kinds: KindRegistry,
    private readonly profiles: ProfileRepository,
    private readonly outbox: ProfilesOutbox,
    private readonly liveOptions: LiveOptionsClient,
  ) {}

  async execute(address: ProfileAddress, dto: UpdateProfileDto): Promise<ProfileViewDto> {
    const kind = this.kinds.require(address.module, address.kind);
    const incoming = dto.config ?? {};
    const live = await this.liveOptions.forKind(kind, Object.keys(incoming));
    const saved = await this.outbox.transaction(async (session) => {
      const existing = await this.profiles.find(address, session);
      if (!existing) throw ProfilesException.profileNotFound(address.module, address.kind, address.profileId);
      const { config, problems } = applyConfigWrite({
        kind,
        stored: existing.config,
        incoming,
        mode: 'merge',
        live,
      });
      if (problems.length) throw ProfilesException.invalidConfig(problems);
      const description = dto.description === undefined ? existing.description : dto.description || undefined;
      const write = {
        ...address,
        name: dto.name ?? existing.name,
        ...(description ? { description } : {}),
        config,
      };
      const profile = await this.profiles.replace(existing, write, new Date(), session);
      await this.outbox.announce(session, address, 'updated');
      return profile;
    });
    return toProfileView(saved, kind);
  }
}
