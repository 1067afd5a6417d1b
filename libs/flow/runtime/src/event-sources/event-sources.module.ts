import { Module } from '@nestjs/common';
import { FlowsModule } from '../flows/flows.module';
import { RunsModule } from '../runs/runs.module';
import { EventSourcesController } from './event-sources.controller';
import { EventSourcesService } from './event-sources.service';

/** Event-source flows bound to their topics (issue 4 item 10). */
@Module({ imports: [FlowsModule, RunsModule], controllers: [EventSourcesController], providers: [EventSourcesService], exports: [EventSourcesService] })
export class EventSourcesModule {}
