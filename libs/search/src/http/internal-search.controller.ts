import { Body, Controller, Delete, HttpCode, Param, Put, UseInterceptors } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { Internal } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { SearchErrorsInterceptor } from '../domain/search.errors';
import { RegisterSearchOwnerDto } from '../dto/owner.dto';
import type { FreshnessRegistrationResult } from '../freshness/search-freshness.service';
import { RemoteSearchOwners } from '../freshness/remote-owners.service';

const MODULE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Owners in other services register their indexes, events list and lifecycle consumers here (service tokens only). */
@ApiExcludeController()
@Controller('internal/search/owners')
@UseInterceptors(SearchErrorsInterceptor)
export class InternalSearchController {
  constructor(private readonly owners: RemoteSearchOwners) {}

  @Put(':module')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.searchOwners)
  register(@Param('module') module: string, @Body() dto: RegisterSearchOwnerDto): Promise<FreshnessRegistrationResult> {
    if (!MODULE.test(module)) throw new DomainException('SEARCH_INVALID', 400, 'module must be 1-100 letters, digits, ".", "_" or "-"');
    return this.owners.register(module, dto);
  }

  @Delete(':module')
  @HttpCode(204)
  @Internal(INTERNAL_PERMS.searchOwners)
  async unregister(@Param('module') module: string): Promise<void> {
    if (!(await this.owners.unregister(module))) throw new DomainException('SEARCH_OWNER_NOT_FOUND', 404, `no search owner ${JSON.stringify(module)} is registered`);
  }
}
