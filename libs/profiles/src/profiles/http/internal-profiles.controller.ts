import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { Internal } from '@flowplane/platform/auth';
import { InternalProfileDto } from '../dto/internal-profile.dto';
import { ProfilesErrorDto } from '../dto/profiles-error.dto';
import { ProfileQueries } from '../use-cases/profile.queries';

/** The route other services' ProfileResolver reads (service tokens only; never through the gateway). */
@ApiTags('profiles')
@Controller('internal/profiles')
export class InternalProfilesController {
  constructor(private readonly queries: ProfileQueries) {}

  @Get(':module/:kind')
  @Internal(INTERNAL_PERMS.profilesList)
  @ApiOperation({ summary: 'Ids and names of the profiles of one kind (profile selector options of flow nodes)' })
  @ApiParam({ name: 'module', example: 'llm' })
  @ApiParam({ name: 'kind', example: 'llm-chat' })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'object', properties: { profileId: { type: 'string' }, name: { type: 'string' } } } } })
  @ApiNotFoundResponse({ type: ProfilesErrorDto, description: 'Unknown kind.' })
  async listOfKind(@Param('module') module: string, @Param('kind') kind: string): Promise<Array<{ profileId: string; name: string }>> {
    return (await this.queries.listOfKind(kind)).filter((p) => p.module === module).map((p) => ({ profileId: p.profileId, name: p.name }));
  }

  @Get(':module/:kind/:id')
  @Internal(INTERNAL_PERMS.profilesResolve)
  @ApiOperation({ summary: 'One profile, UNMASKED, for the ProfileResolver of another service' })
  @ApiParam({ name: 'module', example: 'llm' })
  @ApiParam({ name: 'kind', example: 'llm-chat' })
  @ApiParam({ name: 'id', example: 'openai-prod' })
  @ApiOkResponse({ type: InternalProfileDto })
  @ApiNotFoundResponse({ type: ProfilesErrorDto, description: 'Unknown module, kind or profile id.' })
  get(
    @Param('module') module: string,
    @Param('kind') kind: string,
    @Param('id') profileId: string,
  ): Promise<InternalProfileDto> {
    return this.queries.getInternal({ module, kind, profileId });
  }
}
