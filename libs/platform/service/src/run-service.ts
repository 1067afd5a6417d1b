import { ConfigValidationError } from '@flowplane/platform/config';
import { asPortInUse, PortInUseError } from './port-in-use';
import type { ServiceDefinition } from './service-definition';
import { type RunningService, startService } from './start-service';

/**
 * Entry point of a service process: boots it, exits non-zero listing every invalid variable on
 * bad config, and shuts down gracefully on SIGTERM/SIGINT.
 */
export async function runServiceMain(def: ServiceDefinition): Promise<RunningService> {
  let svc: RunningService;
  try {
    svc = await startService(def);
  } catch (e) {
    const failure = asPortInUse(e, def.name, { ...process.env });
    if (failure instanceof ConfigValidationError || failure instanceof PortInUseError) {
      process.stderr.write(`${def.name}: ${failure.message}\n`);
    } else {
      process.stderr.write(`${def.name}: failed to start: ${(e as Error)?.stack ?? String(e)}\n`);
    }
    process.exit(1);
  }
  const stop = (signal: string) => {
    process.stderr.write(`${def.name}: ${signal} received, shutting down\n`);
    svc.close().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`${def.name}: shutdown failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return svc;
}
