import { type DynamicModule, Module } from '@nestjs/common';
import { ProfileResolverModule } from '@flowplane/platform/service';
import type { SchedulerOptions } from './scheduler/scheduler.tokens';
import { BindingsModule } from './bindings/bindings.module';
import { CompileModule } from './compile/compile.module';
import { EventSourcesModule } from './event-sources/event-sources.module';
import { FlowsModule } from './flows/flows.module';
import { LlmModule } from './llm/llm.module';
import { MailModule } from './mail/mail.module';
import { NodesModule } from './nodes/nodes.module';
import { RunsModule } from './runs/runs.module';
import { SchedulerModule } from './scheduler/scheduler.module';
import { TemplatesModule } from './templates/templates.module';

/**
 * The flow-runtime feature module: flows, versions, runs and the scheduler. Flow routes arrive in
 * parts (issue 4); the scheduler is complete.
 */
@Module({})
export class FlowRuntimeModule {
  // Fixed sub-resources (schedules, templates) register before /flows/:id so they are matched first.
  static forRoot(options: { scheduler?: Partial<SchedulerOptions> } = {}): DynamicModule {
    return { module: FlowRuntimeModule, imports: [ProfileResolverModule.forRoot(), NodesModule, SchedulerModule.forRoot(options.scheduler), TemplatesModule, CompileModule, FlowsModule, RunsModule, EventSourcesModule, LlmModule, MailModule, BindingsModule] };
  }
}
