import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEV_JWT_SECRET, mintToken } from '@flowplane/platform/auth';

/** What the translate commands (i18n-translate, content-translate) share: options, the time cap, the token, the progress bar. */

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** A usage error: the message and the usage text on stderr, exit code 2. */
export function usageFailure(usage: string): (message: string) => never {
  return (message: string): never => {
    process.stderr.write(`${message}\n\n${usage}\n`);
    process.exit(2);
  };
}

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs reads for `options` (strict, no positionals). */
type CommandOptions<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>>['values'];

/**
 * The command's options (strict, no positionals; an unknown or malformed one is a usage error).
 * Undefined after --help, which prints the usage: the command then ends with exit code 0.
 */
export function parseCommandArgs<const O extends ParseArgsOptionsConfig>(options: O, usage: string, fail: (message: string) => never): CommandOptions<O> | undefined {
  let parsed;
  try {
    parsed = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h', default: false } } as O, strict: true as const, allowPositionals: false as const });
  } catch (e) {
    fail((e as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage + '\n');
    return undefined;
  }
  return parsed.values as CommandOptions<O>;
}

/** A duration: `90s`, `5m`, `1h`, `250ms`, or a plain number of milliseconds; 0 means none. Undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = (m[2] ?? 'ms').toLowerCase();
  const factor = unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1;
  return Math.round(Number(m[1]) * factor);
}

/** A comma-separated list, trimmed, blanks dropped. */
export function list(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? [...new Set(items)] : undefined;
}

/** The time cap of the whole command from CLI_TIMEOUT (default 5 minutes, 0 none); an unreadable value is a usage error. */
export function commandTimeout(fail: (message: string) => never): number {
  const timeoutText = process.env.CLI_TIMEOUT?.trim();
  const timeoutMs = timeoutText ? parseDuration(timeoutText) : DEFAULT_TIMEOUT_MS;
  if (timeoutMs === undefined) fail(`CLI_TIMEOUT ${JSON.stringify(timeoutText)} is not a duration such as 90s, 5m, 1h or a number of milliseconds`);
  return timeoutMs;
}

/** The platform's gateway: --base-url, else FLOWPLANE_URL, else the local default; no trailing slash. */
export function gatewayUrl(baseUrl: string | undefined): string {
  return (baseUrl ?? process.env.FLOWPLANE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
}

/** FLOWPLANE_TOKEN, else an admin token minted with AUTH_JWT_SECRET (or, with a note, the development secret). */
export async function adminBearer(subject: string): Promise<string> {
  const given = process.env.FLOWPLANE_TOKEN?.trim();
  if (given) return given;
  const secret = process.env.AUTH_JWT_SECRET || DEV_JWT_SECRET;
  if (!process.env.AUTH_JWT_SECRET) process.stderr.write('note: FLOWPLANE_TOKEN and AUTH_JWT_SECRET are not set; using a token signed with the development secret\n');
  return mintToken(secret, { sub: subject, perms: ['admin:access'], ttl: '1h' });
}

/** The time cap covers the whole command: the call in flight is aborted when it is reached. */
export function startTimeCap(timeoutMs: number): { signal: AbortSignal; stop: () => void } {
  const cap = new AbortController();
  const timer = timeoutMs > 0 ? setTimeout(() => cap.abort(), timeoutMs) : undefined;
  timer?.unref();
  return { signal: cap.signal, stop: () => timer && clearTimeout(timer) };
}

/** A bar on a terminal (one line redrawn), plain lines otherwise (logs, CI). */
export class Progress {
  private readonly tty = Boolean(process.stderr.isTTY);
  private readonly started = Date.now();

  /** `unit` names what is counted ("keys", "translations"). */
  constructor(private readonly unit: string) {}

  update(done: number, total: number, note = ''): void {
    const width = 30;
    const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : width;
    const seconds = (Date.now() - this.started) / 1000;
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${this.unit}  ${seconds.toFixed(1)} s${note ? `  ${note}` : ''}`;
    if (this.tty) process.stderr.write(`\r${line}\u001b[K`);
    else process.stderr.write(`${line}\n`);
  }

  end(): void {
    if (this.tty) process.stderr.write('\n');
  }
}
