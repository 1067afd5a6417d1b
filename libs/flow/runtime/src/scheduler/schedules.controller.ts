import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiExcludeEndpoint, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { AdminRoute, Internal } from '@flowplane/platform/auth';
import { PutScheduleDto, ScheduleView, SeedResultView, SeedSchedulesDto } from './dto/schedule.dto';
import { SchedulesService } from './schedules.service';

/** Scheduler entries (admin: active user and admin:access). */
@ApiTags('schedules')
@ApiBearerAuth()
@Controller('flows/schedules')
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'Every scheduler entry with its next and last firing' })
  @ApiOkResponse({ type: [ScheduleView] })
  list(): Promise<ScheduleView[]> {
    return this.schedules.list();
  }

  @Get(':id')
  @AdminRoute()
  @ApiOperation({ summary: 'One scheduler entry with its next and last firing' })
  @ApiParam({ name: 'id', example: 'i18n-translate-sweep' })
  @ApiOkResponse({ type: ScheduleView })
  @ApiNotFoundResponse({ description: 'No entry with this id.' })
  get(@Param('id') id: string): Promise<ScheduleView> {
    return this.schedules.get(id);
  }

  @Put(':id')
  @AdminRoute()
  @ApiOperation({ summary: 'Create or replace an entry (cron is five fields, UTC); fired by exactly one replica' })
  @ApiParam({ name: 'id', example: 'nightly-report' })
  @ApiBody({ type: PutScheduleDto })
  @ApiOkResponse({ type: ScheduleView })
  put(@Param('id') id: string, @Body() dto: PutScheduleDto): Promise<ScheduleView> {
    return this.schedules.put(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @AdminRoute()
  @ApiOperation({ summary: 'Delete an entry: it fires no more. A seeded entry returns when its module seeds again at start; PUT enabled: false keeps it off' })
  @ApiParam({ name: 'id', example: 'nightly-report' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFoundResponse({ description: 'No entry with this id.' })
  async delete(@Param('id') id: string): Promise<void> {
    await this.schedules.delete(id);
  }
}

/** Seeding by modules at startup: stable ids, never retimed or re-enabled once present. */
@Controller('internal/schedules')
export class InternalSchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Post('seed')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.schedulesSeed)
  @ApiExcludeEndpoint()
  seed(@Body() dto: SeedSchedulesDto): Promise<SeedResultView> {
    return this.schedules.seed(dto);
  }
}
