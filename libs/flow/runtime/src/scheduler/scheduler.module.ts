import { type DynamicModule, Module } from '@nestjs/common';
import { outboxProvider } from '@flowplane/platform/service';
import { ScheduleRepository } from './schedule.repository';
import { InternalSchedulesController, SchedulesController } from './schedules.controller';
import { SchedulesService } from './schedules.service';
import { SchedulerService } from './scheduler.service';
import { SCHEDULER_OPTIONS, SCHEDULES_OUTBOX, type SchedulerOptions } from './scheduler.tokens';

/** The scheduler (issue 4 item 11): entries, seeding, single-replica firing through the outbox. */
@Module({})
export class SchedulerModule {
  static forRoot(options: Partial<SchedulerOptions> = {}): DynamicModule {
    const resolved: SchedulerOptions = { tickMs: 1000, leaseMs: 15_000, now: () => new Date(), ...options };
    return {
      module: SchedulerModule,
      controllers: [SchedulesController, InternalSchedulesController],
      providers: [
        { provide: SCHEDULER_OPTIONS, useValue: resolved },
        outboxProvider(SCHEDULES_OUTBOX, { collection: 'schedules_outbox', source: '/services/flow-runtime' }),
        ScheduleRepository,
        SchedulesService,
        SchedulerService,
      ],
      exports: [SchedulerService, SchedulesService],
    };
  }
}
