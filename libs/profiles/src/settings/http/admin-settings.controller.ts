import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiBody, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AdminRoute, CurrentPrincipal, type Principal } from '@flowplane/platform/auth';
import { AdminModuleSettingsDto, SettingsModuleListDto } from '../dto/admin-settings.dto';
import { SettingsErrorDto } from '../dto/settings-error.dto';
import { UpdateSettingsDto } from '../dto/update-settings.dto';
import { ListSettingsModulesUseCase } from '../use-cases/list-settings-modules.use-case';
import { ReadModuleSettingsUseCase } from '../use-cases/read-module-settings.use-case';
import { UpdateModuleSettingsUseCase } from '../use-cases/update-module-settings.use-case';

const MODULE_PARAM = { name: 'module', description: 'Module that declares the settings.', example: 'site' };

/** Admin reads and writes of module settings (active user with `admin:access`). */
@ApiTags('settings')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: SettingsErrorDto, description: 'Missing or invalid token.' })
@ApiForbiddenResponse({ type: SettingsErrorDto, description: 'Inactive user or missing `admin:access`.' })
@Controller('admin/settings')
export class AdminSettingsController {
  constructor(
    private readonly listModules: ListSettingsModulesUseCase,
    private readonly readModule: ReadModuleSettingsUseCase,
    private readonly updateModule: UpdateModuleSettingsUseCase,
  ) {}

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'List the modules that declare settings (admin:access)' })
  @ApiOkResponse({ type: SettingsModuleListDto })
  list(): SettingsModuleListDto {
    return this.listModules.execute();
  }

  @Get(':module')
  @AdminRoute()
  @ApiOperation({
    summary: 'Read every setting of a module with its declaration, effective value and source (admin:access)',
    description: 'Sensitive values are masked as `••••••••`; `secretsSet` names the sensitive fields that have a value. Localized values are object maps locale to text.',
  })
  @ApiParam(MODULE_PARAM)
  @ApiOkResponse({ type: AdminModuleSettingsDto })
  @ApiNotFoundResponse({ type: SettingsErrorDto, description: 'No module declares settings under this name.' })
  read(@Param('module') module: string): Promise<AdminModuleSettingsDto> {
    return this.readModule.execute(module);
  }

  @Put(':module')
  @AdminRoute()
  @ApiOperation({
    summary: 'Change settings of a module (admin:access)',
    description:
      'Validates every value against the declarations and stores the changes; a change publishes `settings.updated` with the module and the changed keys (never values). Answers the module as `GET` does.',
  })
  @ApiParam(MODULE_PARAM)
  @ApiBody({ type: UpdateSettingsDto })
  @ApiOkResponse({ type: AdminModuleSettingsDto })
  @ApiBadRequestResponse({ type: SettingsErrorDto, description: 'Invalid values; `details` lists every failing field.' })
  @ApiNotFoundResponse({ type: SettingsErrorDto, description: 'No module declares settings under this name.' })
  update(@Param('module') module: string, @Body() body: UpdateSettingsDto, @CurrentPrincipal() principal?: Principal): Promise<AdminModuleSettingsDto> {
    return this.updateModule.execute(module, body.values, principal?.sub);
  }
}
