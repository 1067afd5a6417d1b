import { spawnSync } from 'node:child_process';
import { missingPlatformFlags } from '@flowplane/platform/config';

/**
 * Runs this benchmark again under the platform's V8 flags when node was started without them,
 * and reports whether it did (then the caller stops: the child ran the benchmark). Benchmarks
 * that start the platform in their own process measure it as `npm start` runs it; their
 * baselines share that process, so both sides run under the same flags.
 */
export function relaunchedUnderPlatformFlags(): boolean {
  const missing = missingPlatformFlags();
  if (missing.length === 0) return false;
  const child = spawnSync(process.execPath, [...missing, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exitCode = child.status ?? 1;
  return true;
}
