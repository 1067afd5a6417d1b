import { parseArgs } from 'node:util';
import { DEV_JWT_SECRET, mintToken } from '@flowplane/platform/auth';

const usage = `Usage: npm run token -- --sub <subject> [--perm <perm>]... [--superuser] [--inactive] [--ttl 1h]

Prints a development bearer token signed (HS256) with AUTH_JWT_SECRET.
Example: npm run token -- --sub alice --perm admin:access`;

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        sub: { type: 'string' },
        perm: { type: 'string', multiple: true, default: [] },
        superuser: { type: 'boolean', default: false },
        inactive: { type: 'boolean', default: false },
        ttl: { type: 'string', default: '1h' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${usage}\n`);
    process.exit(2);
  }
  if (args.help) {
    process.stdout.write(usage + '\n');
    return;
  }
  if (!args.sub) {
    process.stderr.write(`--sub is required\n\n${usage}\n`);
    process.exit(2);
  }
  if (!/^\d+[smhd]$/.test(args.ttl!)) {
    process.stderr.write(`--ttl must look like 30m, 1h or 7d\n`);
    process.exit(2);
  }
  let secret = process.env.AUTH_JWT_SECRET;
  if (!secret) {
    secret = DEV_JWT_SECRET;
    process.stderr.write('warning: AUTH_JWT_SECRET is not set; signing with the fixed development secret (not for production)\n');
  }
  const token = await mintToken(secret, { sub: args.sub, perms: args.perm, superuser: args.superuser, active: !args.inactive, ttl: args.ttl });
  process.stdout.write(token + '\n');
}

void main();
