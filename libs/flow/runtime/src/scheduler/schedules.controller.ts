import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBadRequestResponse, ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiExcludeEndpoint, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
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
  @ApiOperation({
    summary: 'Create an entry, or change the given fields of an existing one (cron is five fields, UTC); fired by exactly one replica',
    description: 'Creating needs `cron` and `topic`. On an existing entry only the fields sent change: `{"enabled": false}` turns it off and keeps the rest.',
  })
  @ApiParam({ name: 'id', example: 'nightly-report' })
  @ApiBody({ type: PutScheduleDto })
  @ApiCreatedResponse({ type: ScheduleView, description: 'The entry was created.' })
  @ApiOkResponse({ type: ScheduleView, description: 'The existing entry was changed.' })
  @ApiBadRequestResponse({ description: 'Invalid cron, topic or id, or a new entry without cron or topic (details name each field).' })
  async put(@Param('id') id: string, @Body() dto: PutScheduleDto, @Res({ passthrough: true }) res: Response): Promise<ScheduleView> {
    const { schedule, created } = await this.schedules.put(id, dto);
    res.status(created ? 201 : 200);
    return schedule;
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
