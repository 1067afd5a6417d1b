import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

/** Lints `source` as if it were the file at `file` (relative to the repository root). */
function lintAs(file: string, source: string): { status: number | null; messages: Array<{ ruleId: string; message: string }> } {
  const res = spawnSync(bin('eslint'), ['--stdin', '--stdin-filename', path.join(root, file), '--format', 'json'], { cwd: root, input: source, encoding: 'utf8' });
  const [result] = JSON.parse(res.stdout) as Array<{ messages: Array<{ ruleId: string; message: string }> }>;
  return { status: res.status, messages: result.messages };
}

describe('npm run lint enforces the layering of ARCHITECTURE §6', () => {
  beforeAll(() => {
    // The boundary rule reads Nx's project graph; compute it as `npm run lint` does.
    execFileSync(bin('nx'), ['show', 'projects'], { cwd: root, stdio: 'ignore', env: { ...process.env, NX_DAEMON: 'false' } });
  }, 120000);

  it('fails when a domain lib imports another domain lib', () => {
    const res = lintAs('libs/profiles/src/violation.ts', "import { gatewayDefinition } from '@flowplane/gateway';\nexport const x = gatewayDefinition;\n");
    expect(res.status).not.toBe(0);
    expect(res.messages).toEqual([expect.objectContaining({ ruleId: '@nx/enforce-module-boundaries', message: expect.stringContaining('type:domain') })]);
  }, 60000);

  it('fails when contracts import a framework', () => {
    const res = lintAs('libs/contracts/src/violation.ts', "import { Injectable } from '@nestjs/common';\nexport const x = Injectable;\n");
    expect(res.status).not.toBe(0);
    expect(res.messages).toEqual([expect.objectContaining({ ruleId: '@nx/enforce-module-boundaries', message: expect.stringContaining('@nestjs/common') })]);
  }, 60000);

  it('accepts a domain lib using platform libs and contracts', () => {
    const res = lintAs('libs/profiles/src/fine.ts', "import { Topics } from '@flowplane/contracts';\nimport { STORE } from '@flowplane/platform/service';\nexport const x = [Topics.ProfilesUpdated, STORE];\n");
    expect(res.messages).toEqual([]);
    expect(res.status).toBe(0);
  }, 60000);
});
