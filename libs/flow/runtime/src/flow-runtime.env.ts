import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** flow-runtime settings. */
export class FlowRuntimeEnv {
  /** How often a replica looks for due scheduler entries, in ms (0 disables the scheduler on this replica). */
  @Type(() => Number) @IsInt() @Min(0) @Max(60_000)
  SCHEDULER_TICK_MS = 1000;

  /** Largest flow document accepted by POST /flows/{id}/versions (413 beyond it). */
  @Type(() => Number) @IsInt() @Min(1024)
  FLOW_MAX_DOCUMENT_BYTES = 1024 * 1024;

  /** How long runs and their events are kept. */
  @Type(() => Number) @IsInt() @Min(1)
  RUN_RETENTION_DAYS = 7;

  /** Most nodes a flow document may have (400 beyond it). */
  @Type(() => Number) @IsInt() @Min(1)
  FLOW_MAX_NODES = 500;
}
