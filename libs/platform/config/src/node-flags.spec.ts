import { readFileSync } from 'node:fs';
import path from 'node:path';
import { missingPlatformFlags, PLATFORM_NODE_FLAGS } from './node-flags';

const root = path.resolve(__dirname, '../../../..');

describe('platform node flags', () => {
  it('finds a flag on the command line or in NODE_OPTIONS, and names the ones missing', () => {
    expect(missingPlatformFlags([], '')).toEqual([...PLATFORM_NODE_FLAGS]);
    expect(missingPlatformFlags([...PLATFORM_NODE_FLAGS], '')).toEqual([]);
    expect(missingPlatformFlags(['--enable-source-maps'], `--enable-source-maps  ${PLATFORM_NODE_FLAGS.join(' ')}`)).toEqual([]);
    // Another value of the same flag is not the platform's.
    expect(missingPlatformFlags(['--max-semi-space-size=8'], '')).toEqual([...PLATFORM_NODE_FLAGS]);
  });

  it('is what npm start and the container image start node with', () => {
    const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
    const nodeOptions = /NODE_OPTIONS="([^"]*)"/.exec(readFileSync(path.join(root, 'docker/Dockerfile'), 'utf8'))?.[1] ?? '';
    const startArgs = start.slice(start.lastIndexOf('node ')).split(/\s+/);
    expect(missingPlatformFlags(startArgs, '')).toEqual([]);
    expect(missingPlatformFlags([], nodeOptions)).toEqual([]);
  });
});
