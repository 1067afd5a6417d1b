import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Put,
  Res,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CreateProfileDto } from '../dto/create-profile.dto';
import { DuplicateProfileDto } from '../dto/duplicate-profile.dto';
import { ProfileKindViewDto } from '../dto/profile-kind-view.dto';
import { DeletedProfileDto, ProfileViewDto } from '../dto/profile-view.dto';
import { ProfilesErrorDto } from '../dto/profiles-error.dto';
import { ResolvedProfileDto, ResolveProfileDto } from '../dto/resolve-profile.dto';
import { UpdateProfileDto } from '../dto/update-profile.dto';
import { DeleteProfileUseCase } from '../use-cases/delete-profile.use-case';
import { DuplicateProfileUseCase } from '../use-cases/duplicate-profile.use-case';
import { ListKindsUseCase } from '../use-cases/list-kinds.use-case';
import { ProfileQueries } from '../use-cases/profile.queries';
import { ResolveProfileUseCase } from '../use-cases/resolve-profile.use-case';
import { UpdateProfileUseCase } from '../use-cases/update-profile.use-case';
import { UpsertProfileUseCase } from '../use-cases/upsert-profile.use-case';
import { ProfilesRead, ProfilesWrite } from './profiles-access.decorators';

const AddressParams = () =>
  applyDecorators(
    ApiParam({ name: 'module', description: 'Owner module of the kind', example: 'llm' }),
    ApiParam({ name: 'kind', description: 'Kind id', example: 'llm-chat' }),
    ApiParam({ name: 'id', description: 'Profile id', example: 'openai-prod' }),
    ApiNotFoundResponse({ type: ProfilesErrorDto, description: 'Unknown module, kind or profile id.' }),
  );

const Invalid = () =>
  ApiBadRequestResponse({
    type: ProfilesErrorDto,
    description: 'Invalid body; `details` lists every failing field.',
  });

/** Profiles admin API (spec: Profiles endpoints), under /api/v1/admin/profiles. */
@ApiTags('profiles')
@Controller('admin/profiles')
export class ProfilesController {
  constructor(
    private readonly queries: ProfileQueries,
    private readonly listKinds: ListKindsUseCase,
    private readonly upsertProfile: UpsertProfileUseCase,
    private readonly updateProfile: UpdateProfileUseCase,
    private readonly deleteProfile: DeleteProfileUseCase,
    private readonly duplicateProfile: DuplicateProfileUseCase,
    private readonly resolveProfile: ResolveProfileUseCase,
  ) {}

  @Get()
  @ProfilesRead()
  @ApiOperation({ summary: 'Every profile, sensitive values masked' })
  @ApiOkResponse({ type: [ProfileViewDto] })
  list(): Promise<ProfileViewDto[]> {
    return this.queries.list();
  }

  // The /kinds routes come before /{module}/{kind}/{id}; their depths differ anyway, so neither captures the other.
  @Get('kinds')
  @ProfilesRead()
  @ApiOperation({
    summary: 'Profile kinds with their field schemas',
    description:
      'Fields with a live option source (`options_ref`) carry the live options, or `optionsUnavailable: true` with a reason when the source cannot be reached.',
  })
  @ApiOkResponse({ type: [ProfileKindViewDto] })
  kinds(): Promise<ProfileKindViewDto[]> {
    return this.listKinds.execute();
  }

  @Get('kinds/:kind')
  @ProfilesRead()
  @ApiOperation({ summary: 'Profiles of one kind, sensitive values masked' })
  @ApiParam({ name: 'kind', description: 'Kind id', example: 'llm-chat' })
  @ApiOkResponse({ type: [ProfileViewDto] })
  @ApiNotFoundResponse({ type: ProfilesErrorDto, description: 'Unknown kind.' })
  listOfKind(@Param('kind') kind: string): Promise<ProfileViewDto[]> {
    return this.queries.listOfKind(kind);
  }

  @Post()
  @ProfilesWrite()
  @ApiOperation({
    summary: 'Create or upsert a profile',
    description:
      'The body is the whole profile: on an existing address identity and config are replaced (config keys omitted are dropped; the mask token on a sensitive field keeps the stored secret). Publishes `profiles.updated`.',
  })
  @ApiBody({ type: CreateProfileDto })
  @ApiCreatedResponse({ type: ProfileViewDto, description: 'Created.' })
  @ApiOkResponse({ type: ProfileViewDto, description: 'Replaced an existing profile.' })
  @Invalid()
  @ApiNotFoundResponse({ type: ProfilesErrorDto, description: 'Unknown module or kind.' })
  async upsert(
    @Body() dto: CreateProfileDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ProfileViewDto> {
    const { profile, created } = await this.upsertProfile.execute(dto);
    res.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    return profile;
  }

  @Post('resolve')
  @HttpCode(HttpStatus.OK)
  @ProfilesRead()
  @ApiOperation({
    summary: 'Merge a node config over a profile and report where each value came from (masked)',
  })
  @ApiBody({ type: ResolveProfileDto })
  @ApiOkResponse({ type: ResolvedProfileDto })
  @Invalid()
  @ApiNotFoundResponse({ type: ProfilesErrorDto, description: 'Unknown module, kind or profile id.' })
  resolve(@Body() dto: ResolveProfileDto): Promise<ResolvedProfileDto> {
    return this.resolveProfile.execute(dto);
  }

  @Get(':module/:kind/:id')
  @ProfilesRead()
  @ApiOperation({ summary: 'One profile, sensitive values masked' })
  @AddressParams()
  @ApiOkResponse({ type: ProfileViewDto })
  get(
    @Param('module') module: string,
    @Param('kind') kind: string,
    @Param('id') profileId: string,
  ): Promise<ProfileViewDto> {
    return this.queries.get({ module, kind, profileId });
  }

  @Put(':module/:kind/:id')
  @ProfilesWrite()
  @ApiOperation({
    summary: 'Update a profile',
    description:
      'Changes what the body names; config keys merge over the stored config (empty string or null clears, the mask token keeps a secret). Publishes `profiles.updated`.',
  })
  @AddressParams()
  @ApiBody({ type: UpdateProfileDto })
  @ApiOkResponse({ type: ProfileViewDto })
  @Invalid()
  update(
    @Param('module') module: string,
    @Param('kind') kind: string,
    @Param('id') profileId: string,
    @Body() dto: UpdateProfileDto,
  ): Promise<ProfileViewDto> {
    return this.updateProfile.execute({ module, kind, profileId }, dto);
  }

  @Delete(':module/:kind/:id')
  @ProfilesWrite()
  @ApiOperation({
    summary: 'Delete a profile',
    description: 'Nodes that reference it get "profile not found" at run time. Publishes `profiles.updated`.',
  })
  @AddressParams()
  @ApiOkResponse({ type: DeletedProfileDto })
  remove(
    @Param('module') module: string,
    @Param('kind') kind: string,
    @Param('id') profileId: string,
  ): Promise<DeletedProfileDto> {
    return this.deleteProfile.execute({ module, kind, profileId });
  }

  @Post(':module/:kind/:id/duplicate')
  @ProfilesWrite()
  @ApiOperation({
    summary: 'Duplicate a profile',
    description:
      'Clones the profile (sensitive values as stored), applies `configPatches`, and stores it under `newProfileId` or the next free `<id>-copy`, `<id>-copy-2`, ... Returns the clone, masked. Publishes `profiles.updated`.',
  })
  @AddressParams()
  @ApiBody({ type: DuplicateProfileDto, required: false })
  @ApiCreatedResponse({ type: ProfileViewDto })
  @Invalid()
  @ApiConflictResponse({ type: ProfilesErrorDto, description: '`newProfileId` is taken.' })
  duplicate(
    @Param('module') module: string,
    @Param('kind') kind: string,
    @Param('id') profileId: string,
    @Body() dto: DuplicateProfileDto,
  ): Promise<ProfileViewDto> {
    return this.duplicateProfile.execute({ module, kind, profileId }, dto);
  }
}
