import { Injectable } from '@nestjs/common';
import { applyConfigWrite } from '../domain/profile-config.validator';
import { toProfileView } from '../domain/profile.presenter';
import type { ProfileAddress } from '../domain/profile.entity';
import type { CreateProfileDto } from '../dto/create-profile.dto';
import type { ProfileViewDto } from '../dto/profile-view.dto';
import { KindRegistry } from '../kinds/kind.registry';
import { LiveOptionsClient } from '../kinds/live-options.client';
import { isDuplicateKey } from '../persistence/duplicate-key.util';
import { ProfileRepository } from '../persistence/profile.repository';
import { ProfilesOutbox } from '../persistence/profiles.outbox';
import { ProfilesException } from '../profiles.exception';

/** Attempts of an upsert that lost an insert race (each retry sees the winner's row and updates it). */
const MAX_ATTEMPTS = 3;

/**
 * `POST /admin/profiles`: creates the profile, or replaces identity and config of the one at that
 * address. The body is the whole profile: config keys it omits are dropped, except that the mask
 * token on a sensitive field keeps the stored secret. Announces `created` or `updated`.
 */
@Injectable()
export class UpsertProfileUseCase {
  constructor(
    private readonly kinds: KindRegistry,
    private readonly profiles: ProfileRepository,
    private readonly outbox: ProfilesOutbox,
    private readonly liveOptions: LiveOptionsClient,
  ) {}

  async execute(dto: CreateProfileDto): Promise<{ profile: ProfileViewDto; created: boolean }> {
    const kind = this.kinds.require(dto.module, dto.kind);
    const live = await this.liveOptions.forKind(kind, Object.keys(dto.config));
    const address: ProfileAddress = { module: dto.module, kind: dto.kind, profileId: dto.profileId };
    for (let attempt = 1; ; attempt++) {
      try {
        const { saved, created } = await this.outbox.transaction(async (session) => {
          const existing = await this.profiles.find(address, session);
          const { config, problems } = applyConfigWrite({
            kind,
            stored: existing?.config ?? {},
            incoming: dto.config,
            mode: 'replace',
            live,
          });
          if (problems.length) throw ProfilesException.invalidConfig(problems);
          const write = {
            ...address,
            name: dto.name,
            ...(dto.description ? { description: dto.description } : {}),
            config,
          };
          const now = new Date();
          const saved = existing
            ? await this.profiles.replace(existing, write, now, session)
            : await this.profiles.insert(write, now, session);
          await this.outbox.announce(session, address, existing ? 'updated' : 'created');
          return { saved, created: !existing };
        });
        return { profile: toProfileView(saved, kind), created };
      } catch (error) {
        // Two upserts of a new address raced and this one's insert lost on the unique index: run
        // again, see the winner's row and replace it. Both succeed, the last write wins, one event each.
        if (isDuplicateKey(error) && attempt < MAX_ATTEMPTS) continue;
        throw error;
      }
    }
  }
}
