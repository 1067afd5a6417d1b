import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** True when CI demands that integration suites run instead of skipping (`REQUIRE_INTEGRATION=1`). */
export function integrationRequired(): boolean {
  return process.env.REQUIRE_INTEGRATION === '1';
}

/** True when `cmd` is an executable on PATH. */
export function hasCommand(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** True when `file` exists. */
export function hasFile(file: string): boolean {
  return existsSync(file);
}

export interface IntegrationOptions {
  /**
   * Whether `REQUIRE_INTEGRATION=1` turns a skip into a failure. True for what CI installs
   * (Kafka mock, NATS, Redis, Chromium); false for servers CI cannot run (MongoDB, Qdrant).
   */
  requiredInCi: boolean;
}

/**
 * `describe` for a suite that needs a server. When `unavailable` is a reason string, the suite
 * prints one `SKIPPED: <name>: <why>` line and registers no tests, or, under
 * `REQUIRE_INTEGRATION=1` with `requiredInCi`, registers one failing test naming the reason.
 */
export function describeIntegration(
  name: string,
  unavailable: string | false,
  options: IntegrationOptions,
  body: () => void,
): void {
  if (!unavailable) {
    describe(name, body);
    return;
  }
  if (integrationRequired() && options.requiredInCi) {
    describe(name, () => {
      it('has its integration dependency available (REQUIRE_INTEGRATION=1)', () => {
        throw new Error(`${name}: ${unavailable}`);
      });
    });
    return;
  }
  console.log(`SKIPPED: ${name}: ${unavailable}`);
  describe(name, () => {
    it.todo(`runs when available: ${unavailable}`);
  });
}

/**
 * `it` for one test of a suite whose own dependency is there but that needs one more (a NATS
 * server beside Kafka): the same rules as `describeIntegration`, one test at a time.
 */
export function itIntegration(name: string, unavailable: string | false, options: IntegrationOptions, fn: () => Promise<void>, timeoutMs?: number): void {
  if (!unavailable) {
    it(name, fn, timeoutMs);
    return;
  }
  if (integrationRequired() && options.requiredInCi) {
    it(name, () => {
      throw new Error(`${name}: ${unavailable} (REQUIRE_INTEGRATION=1)`);
    });
    return;
  }
  console.log(`SKIPPED: ${name}: ${unavailable}`);
  it.todo(`${name} (runs when available: ${unavailable})`);
}
