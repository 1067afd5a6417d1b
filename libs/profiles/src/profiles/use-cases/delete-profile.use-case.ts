import { Injectable } from '@nestjs/common';
import type { ProfileAddress } from '../domain/profile.entity';
import type { DeletedProfileDto } from '../dto/profile-view.dto';
import { KindRegistry } from '../kinds/kind.registry';
import { ProfileRepository } from '../persistence/profile.repository';
import { ProfilesOutbox } from '../persistence/profiles.outbox';
import { ProfilesException } from '../profiles.exception';

/**
 * `DELETE /admin/profiles/{module}/{kind}/{id}`. Nodes may still reference the profile; that is
 * allowed, their resolver reports "profile not found" at run time. A profile of a kind no longer
 * declared can still be deleted. Announces `deleted`.
 */
@Injectable()
export class DeleteProfileUseCase {
  constructor(
    private readonly kinds: KindRegistry,
    private readonly profiles: ProfileRepository,
    private readonly outbox: ProfilesOutbox,
  ) {}

  async execute(address: ProfileAddress): Promise<DeletedProfileDto> {
    const deleted = await this.outbox.transaction(async (session) => {
      const gone = await this.profiles.delete(address, session);
      if (gone) await this.outbox.announce(session, address, 'deleted');
      return gone;
    });
    if (!deleted) {
      this.kinds.require(address.module, address.kind);
      throw ProfilesException.profileNotFound(address.module, address.kind, address.profileId);
    }
    return { module: address.module, kind: address.kind, profileId: address.profileId, deleted: true };
  }
}
