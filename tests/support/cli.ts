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
