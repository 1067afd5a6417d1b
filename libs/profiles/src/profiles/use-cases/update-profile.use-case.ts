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

const IDENTITY = ['module', 'kind', 'profileId'] as const;

/**
 * A client may send back the object GET answered, identity included; an identity that names
 * another profile is refused rather than ignored, since the caller may believe it renames or moves
 * the profile.
 */
function assertSameIdentity(address: ProfileAddress, dto: UpdateProfileDto): void {
  const problems = IDENTITY.filter((key) => dto[key] !== undefined && dto[key] !== address[key]).map((key) => ({
    field: key,
    problems: [`${key} must equal the path (${JSON.stringify(address[key])}) or be left out; a profile keeps its address`],
  }));
  if (problems.length) throw ProfilesException.identityMismatch(problems);
}

/**
 * `PUT /admin/profiles/{module}/{kind}/{id}`: changes what the body names. Config keys are merged
 * over the stored config (an empty string or null clears one, the mask token keeps a stored secret);
 * an empty description removes it. Identity fields equal to the path and the read-only fields of the
 * GET answer (`secretsSet`, `createdAt`, `updatedAt`) are accepted and ignored. Announces `updated`.
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
    assertSameIdentity(address, dto);
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
