/**
 * The V8 flags every platform process runs with (ADR 0049). V8 sizes its heap only at start-up,
 * so these go on node's command line: `npm start`, the split launcher's children and the
 * container image (NODE_OPTIONS) pass them, and the benchmarks run under them so they measure the
 * platform as it ships.
 *
 * `--max-semi-space-size=32`: a young generation twice V8's default of 16 MiB per semi-space.
 * Every request allocates its short-lived objects there; a larger one is collected half as often,
 * and a scavenge costs what survives it (the requests in flight), not what was allocated. The
 * space grows only under allocation pressure, so an idle service keeps its small start size.
 */
export const PLATFORM_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/** The platform flags this process was started without (empty when node already has them all). */
export function missingPlatformFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)]);
  return PLATFORM_NODE_FLAGS.filter((flag) => !given.has(flag));
}
