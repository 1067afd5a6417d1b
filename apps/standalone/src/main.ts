import 'reflect-metadata';
import { ConfigValidationError } from '@flowplane/platform/config';
import { PortInUseError } from '@flowplane/platform/service';
import { startStandalone } from './standalone';

async function main(): Promise<void> {
  const started = Date.now();
  let platform;
  try {
    platform = await startStandalone();
  } catch (e) {
    if (e instanceof ConfigValidationError || e instanceof PortInUseError) process.stderr.write(`flowplane: ${e.message}\n`);
    else process.stderr.write(`flowplane failed to start: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  }
  const lines = [
    '',
    `  Flowplane is running (all services in one process, embedded defaults) — ready in ${Date.now() - started} ms`,
    '',
    `  Gateway        ${platform.url}`,
    `  Health         ${platform.url}/api/v1/health`,
    `  API docs       ${platform.url}/api/docs`,
    `  OpenAPI        ${platform.url}/api/v1/openapi.json`,
    `  WebSocket      ${platform.url.replace('http', 'ws')}/ws/health`,
    '',
    ...platform.services.map((s) => `  ${s.name.padEnd(14)} ${s.url}`),
    '',
    `  Data           ${process.env.DATA_DIR ?? './.data'}`,
    `  Token          npm run token -- --sub alice --perm admin:access`,
    '',
  ];
  if (platform.usedDevSecret) {
    lines.push('  WARNING: AUTH_JWT_SECRET is not set; using the fixed development secret. Not for production.', '');
  }
  if (!process.env.SECRETS_KEY) {
    lines.push('  WARNING: SECRETS_KEY is not set; stored secrets are encrypted with the fixed development key. Not for production.', '');
  }
  process.stdout.write(lines.join('\n') + '\n');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n  ${signal}: stopping Flowplane...\n`);
    platform.close().then(
      () => {
        process.stdout.write('  stopped cleanly\n');
        process.exit(0);
      },
      (e) => {
        process.stderr.write(`  shutdown failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
