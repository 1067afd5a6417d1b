import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { INTERNAL_PERMS, type PublicSettingsSnapshot } from '@flowplane/contracts';
import { Internal } from '@flowplane/platform/auth';
import { presentInternalValues } from '../domain/settings.presenter';
import { EffectiveSettings } from '../use-cases/effective-settings.service';

/** Settings for other services of the platform (service tokens only; the gateway never exposes `/internal`). */
@ApiExcludeController()
@Controller('internal')
export class InternalSettingsController {
  constructor(private readonly settings: EffectiveSettings) {}

  /** Every public, non-sensitive setting with a value; read by `PublicSettingsReader`. */
  @Get('public-settings')
  @Internal(INTERNAL_PERMS.settingsPublic)
  publicSnapshot(): Promise<PublicSettingsSnapshot> {
    return this.settings.publicSnapshot();
  }

  /** Effective, unmasked values of one module with their sources. */
  @Get('settings/:module')
  @Internal(INTERNAL_PERMS.settingsRead)
  async module(@Param('module') module: string) {
    return presentInternalValues(module, await this.settings.module(module));
  }
}
