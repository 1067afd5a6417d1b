import { Injectable } from '@nestjs/common';
import { nextCopyId } from '../domain/copy-id';
import { applyConfigWrite } from '../domain/profile-config.validator';
import { toProfileView } from '../domain/profile.presenter';
import type { ProfileAddress } from '../domain/profile.entity';
import type { DuplicateProfileDto } from '../dto/duplicate-profile.dto';
import type { ProfileViewDto } from '../dto/profile-view.dto';
import { KindRegistry } from '../kinds/kind.registry';
import { LiveOptionsClient } from '../kinds/live-options.client';
import { isDuplicateKey } from '../persistence/duplicate-key.util';
import { ProfileRepository } from '../persistence/profile.repository';
import { ProfilesOutbox } from '../persistence/profiles.outbox';
import { ProfilesException } from '../profiles.exception';

/** Attempts when a picked `-copy` id was taken by a concurrent duplicate between pick and insert. */
const MAX_ATTEMPTS = 5;

/**
 * `POST /admin/profiles/{module}/{kind}/{id}/duplicate` (rule 21): clones the source (sensitive
 * values as stored), applies `configPatches` validated like an update, and stores the clone under
 * `newProfileId` (409 when taken) or the next free `<src>-copy[-N]`. Announces `created`.
 */
@Injectable()
export class DuplicateProfileUseCase {
  constructor(
    private readonly kinds: KindRegistry,
    private readonly profiles: ProfileRepository,
    private readonly outbox: ProfilesOutbox,
    private readonly liveOptions: LiveOptionsClient,
  ) {}

  async execute(source: ProfileAddress, dto: DuplicateProfileDto = {}): Promise<ProfileViewDto> {
    const kind = this.kinds.require(source.module, source.kind);
    const patches = dto.configPatches ?? {};
    const live = await this.liveOptions.forKind(kind, Object.keys(patches));
    const explicitId = dto.newProfileId || undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const clone = await this.outbox.transaction(async (session) => {
          const original = await this.profiles.find(source, session);
          if (!original)
            throw ProfilesException.profileNotFound(source.module, source.kind, source.profileId);
          const { config, problems } = applyConfigWrite({
            kind,
            stored: original.config,
            incoming: patches,
            mode: 'merge',
            live,
            path: 'configPatches',
          });
          if (problems.length) throw ProfilesException.invalidConfig(problems);
          const profileId =
            explicitId ??
            nextCopyId(
              original.profileId,
              await this.profiles.idsStartingWith(
                source.module,
                source.kind,
                `${original.profileId}-copy`,
                session,
              ),
            );
          const target = { module: source.module, kind: source.kind, profileId };
          if (explicitId && (await this.profiles.find(target, session)))
            throw ProfilesException.profileExists(target.module, target.kind, profileId);
          const write = {
            ...target,
            name: dto.newName || `${original.name} (copy)`,
            ...(original.description !== undefined ? { description: original.description } : {}),
            config,
          };
          const saved = await this.profiles.insert(write, new Date(), session);
          await this.outbox.announce(session, target, 'created');
          return saved;
        });
        return toProfileView(clone, kind);
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        if (explicitId) throw ProfilesException.profileExists(source.module, source.kind, explicitId);
        if (attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }
}
