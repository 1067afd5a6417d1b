import { Injectable } from '@nestjs/common';
import { toKindView } from '../domain/profile.presenter';
import type { ProfileKindViewDto } from '../dto/profile-kind-view.dto';
import { KindRegistry } from '../kinds/kind.registry';
import { LiveOptionsClient } from '../kinds/live-options.client';

/**
 * `GET /admin/profiles/kinds`: every kind with its field schema. Live option sources are asked in
 * parallel with a short timeout; one that cannot answer leaves its field marked
 * `optionsUnavailable` with the reason instead of failing the listing.
 */
@Injectable()
export class ListKindsUseCase {
  constructor(
    private readonly kinds: KindRegistry,
    private readonly liveOptions: LiveOptionsClient,
  ) {}

  async execute(): Promise<ProfileKindViewDto[]> {
    return Promise.all(
      this.kinds.all().map(async (kind) => toKindView(kind, await this.liveOptions.forKind(kind))),
    );
  }
}
