import { BusEnv } from './env-fragments';
import { ConfigValidationError, loadConfig } from './load-config';

/** A launcher that chooses the bus for the services it starts. */
export type BusLauncher = 'standalone' | 'split';

const ONLY: Record<BusLauncher, { bus: 'memory' | 'kafka'; why: string }> = {
  standalone: {
    bus: 'memory',
    why: 'standalone (npm start) runs every service on one in-memory bus; for Kafka run split mode (npm run start:split) or each service on its own',
  },
  split: {
    bus: 'kafka',
    why: 'split mode (npm run start:split) runs every service as its own process on Kafka; the in-memory bus works only in one process (npm start)',
  },
};

/**
 * Checks `BUS` (and `BUS_MAX_ATTEMPTS`) for a launcher that fixes the bus itself, so that a value it
 * would otherwise override is never silently ignored: an unknown value is the same config error a
 * single service gives, and a known one the launcher cannot honour is refused naming the mode that
 * can. Throws ConfigValidationError.
 */
export function checkBusForLauncher(launcher: BusLauncher, env: Record<string, string | undefined>): void {
  const { BUS } = loadConfig([BusEnv], env);
  const only = ONLY[launcher];
  if (env.BUS && BUS !== only.bus) throw new ConfigValidationError([{ variable: 'BUS', problems: [`BUS=${BUS} is not available here: ${only.why}`] }]);
}
