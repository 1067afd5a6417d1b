import { CronExpressionParser } from 'cron-parser';

/** A scheduler entry: publishes `payload` on `topic` at every `cron` time (five fields, UTC). */
export interface ScheduleEntry {
  id: string;
  cron: string;
  topic: string;
  payload: Record<string, unknown>;
  enabled: boolean;
  /** Next due time (absent while disabled). */
  nextRunAt?: Date;
  lastFiredAt?: Date;
  /** Where the entry came from: a module's seed or an operator. */
  source: 'seed' | 'operator';
  createdAt: Date;
  updatedAt: Date;
}

const FIVE_FIELDS = /^\s*\S+(\s+\S+){4}\s*$/;

/** Checks a five-field cron expression; returns the reason when it is not one. */
export function cronProblem(cron: string): string | undefined {
  if (!FIVE_FIELDS.test(cron)) return 'cron must have exactly five fields (minute hour day-of-month month day-of-week), evaluated in UTC';
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC' });
    return undefined;
  } catch (e) {
    return `cron is invalid: ${(e as Error).message}`;
  }
}

/** The first time strictly after `after` that matches `cron` (UTC). */
export function nextRun(cron: string, after: Date): Date {
  return CronExpressionParser.parse(cron, { tz: 'UTC', currentDate: after }).next().toDate();
}
