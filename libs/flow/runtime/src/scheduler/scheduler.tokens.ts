/** Nest token of the scheduler's outbox. */
export const SCHEDULES_OUTBOX = Symbol('SCHEDULES_OUTBOX');
/** Nest token of the scheduler's options. */
export const SCHEDULER_OPTIONS = Symbol('SCHEDULER_OPTIONS');

export interface SchedulerOptions {
  /** How often a replica looks for due entries (0 disables the timer; tests tick by hand). */
  tickMs: number;
  /** How long the leader's lease lasts without renewal. */
  leaseMs: number;
  now(): Date;
}
