import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** flow-runtime settings. */
export class FlowRuntimeEnv {
  /** How often a replica looks for due scheduler entries, in ms (0 disables the scheduler on this replica). */
  @Type(() => Number) @IsInt() @Min(0) @Max(60_000)
  SCHEDULER_TICK_MS = 1000;
}
