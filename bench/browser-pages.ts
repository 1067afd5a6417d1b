import { existsSync } from 'node:fs';
import path from 'node:path';

/** Helpers of the benchmarks that load the console and the widget in Chromium. */

/** Debian's Chromium; CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * A token of JWT shape for the console's sign-in. The benchmarks answer the console's API calls from
 * their own server (so the figure is the page's cost alone), and that server never verifies it.
 */
export const CONSOLE_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJiZW5jaCJ9.c2lnbmF0dXJl';

/** The repository root, from dist/bench or bench. */
export function repoRoot(from = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** The q-quantile (0..1) of unsorted samples. */
export function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}
