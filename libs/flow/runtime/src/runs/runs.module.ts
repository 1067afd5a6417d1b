import { Module } from '@nestjs/common';
import { FlowsModule } from '../flows/flows.module';
import { ModuleSettingsReader } from '../settings/module-settings.reader';
import { RunRepository } from './run.repository';
import { InternalRunsController, RunsController } from './runs.controller';
import { RunsService } from './runs.service';

/** Runs: start (sync, SSE, async), read with timeline, event stream with resume, cancel (issue 4 item 9). */
@Module({ imports: [FlowsModule], controllers: [RunsController, InternalRunsController], providers: [RunRepository, ModuleSettingsReader, RunsService], exports: [RunsService] })
export class RunsModule {}
