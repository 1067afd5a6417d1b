import { Injectable } from '@nestjs/common';
import { mergeWithProvenance } from '@flowplane/contracts';
import { SettingsReader } from '../../settings/settings-reader';
import { maskValues } from '../domain/profile.masking';
import type { ResolvedProfileDto, ResolveProfileDto } from '../dto/resolve-profile.dto';
import { KindRegistry } from '../kinds/kind.registry';
import type { ResolvedKind } from '../kinds/profile-kind.model';
import { ProfileRepository } from '../persistence/profile.repository';
import { ProfilesException } from '../profiles.exception';

/**
 * `POST /admin/profiles/resolve`: what a node with this config would run with, and who set each
 * value: node over profile over module setting (`setting_ref` fields whose setting is stored or set
 * through its env var) over the field default. Sensitive values are masked whichever layer set them.
 */
@Injectable()
export class ResolveProfileUseCase {
  constructor(
    private readonly kinds: KindRegistry,
    private readonly profiles: ProfileRepository,
    private readonly settings: SettingsReader,
  ) {}

  async execute(dto: ResolveProfileDto): Promise<ResolvedProfileDto> {
    const kind = this.kinds.require(dto.module, dto.kind);
    const profile = await this.profiles.find({
      module: dto.module,
      kind: dto.kind,
      profileId: dto.profileId,
    });
    if (!profile) throw ProfilesException.profileNotFound(dto.module, dto.kind, dto.profileId);
    const defaults: Record<string, unknown> = {};
    for (const f of kind.fields) if (f.default !== undefined) defaults[f.key] = f.default;
    const { values, sources } = mergeWithProvenance({
      node: dto.config ?? {},
      profile: profile.config,
      settings: await this.settingValues(kind),
      defaults,
      overridable: new Set(kind.fields.filter((f) => f.overridable).map((f) => f.key)),
    });
    return { values: maskValues(kind, values), sources };
  }

  private async settingValues(kind: ResolvedKind): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    const reader = this.settings;
    await Promise.all(
      kind.fields.map(async (f) => {
        if (!f.setting_ref) return;
        const { value, source } = await reader.effective(f.setting_ref.module, f.setting_ref.key);
        // A setting that only has its declared default is the default layer (the field's default, inline or inherited).
        if ((source === 'stored' || source === 'env') && value !== undefined) out[f.key] = value;
      }),
    );
    return out;
  }
}
