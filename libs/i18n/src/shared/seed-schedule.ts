import type { Logger } from '@nestjs/common';
import { ServiceCallError } from '@flowplane/contracts';
import type { ServiceClients } from '@flowplane/platform/service';

/** One scheduler entry to seed in flow-runtime, and the variable its cron came from (named in the log). */
export interface ScheduleSeed {
  id: string;
  cron: string;
  topic: string;
  cronVariable: string;
}

/**
 * Seeds a scheduler entry once: flow-runtime leaves an existing entry exactly as it is. `refused`
 * when flow-runtime will not take the cron (logged once; retrying would not help); any other failure
 * throws, for the caller to retry.
 */
export async function seedScheduleEntry(clients: ServiceClients, log: Logger, seed: ScheduleSeed): Promise<'inserted' | 'existing' | 'refused'> {
  const { id, cron, topic, cronVariable } = seed;
  try {
    const r = await clients
      .for('flow-runtime', { timeoutMs: 10_000, retries: 0 })
      .post<{ inserted: string[]; existing: string[] }>('/internal/schedules/seed', { entries: [{ id, cron, topic, payload: {}, enabled: true }] });
    if (r.inserted.includes(id)) {
      log.log(`scheduler entry ${id} seeded (${cron} UTC)`);
      return 'inserted';
    }
    return 'existing';
  } catch (e) {
    if (e instanceof ServiceCallError && e.status === 400) {
      log.error(`scheduler entry ${id} not seeded: ${cronVariable} ${JSON.stringify(cron)} was refused: ${e.remoteMessage ?? e.message}`);
      return 'refused';
    }
    throw e;
  }
}
