import { spawn } from 'node:child_process';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a built CLI script (dist/…js) with node, without blocking the event loop (the platform under
 * test serves it from this process). FLOWPLANE_TOKEN and CLI_TIMEOUT are cleared unless `env` sets them.
 */
export function runCli(bin: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, FLOWPLANE_TOKEN: '', CLI_TIMEOUT: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * What every command built on apps/cli/src/shared/translate-command.ts promises about its time cap
 * and usage errors: CLI_TIMEOUT reached exits 1 saying so, an unknown option or an unreadable
 * CLI_TIMEOUT exits 2. `run` runs the command with the given arguments and environment.
 */
export async function expectTimeCapAndUsageExits(run: (args: string[], env?: Record<string, string>) => Promise<CliResult>, baseUrl: string, env: Record<string, string>): Promise<void> {
  const capped = await run(['--base-url', baseUrl], { ...env, CLI_TIMEOUT: '1ms' });
  expect(capped.code).toBe(1);
  expect(capped.stderr).toContain('stopped: CLI_TIMEOUT (1 ms) reached');
  expect((await run(['--colour'])).code).toBe(2);
  const badTimeout = await run([], { CLI_TIMEOUT: 'soon' });
  expect(badTimeout.code).toBe(2);
  expect(badTimeout.stderr).toContain('CLI_TIMEOUT "soon" is not a duration');
}
