import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CONSOLE_MESSAGES } from './console-messages';

/** The seeded English must be the console's inline defaults, key for key, or a catalog would change its wording. */
describe('console messages seed', () => {
  const root = path.resolve(__dirname, '../../../../../apps/console/src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) =>
      statSync(path.join(dir, f)).isDirectory()
        ? files(path.join(dir, f))
        : /\.tsx?$/.test(f) && !f.endsWith('.spec.ts')
          ? [path.join(dir, f)]
          : [],
    );
  const calls = new Map<string, string>();
  for (const file of files(root)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\$t\(\s*'([\w.]+)',\s*'((?:[^'\\]|\\.)*)'/g))
      calls.set(m[1], m[2].replace(/\\'/g, "'"));
  }

  it('seeds every key the console uses, with its inline English default', () => {
    expect(calls.size).toBeGreaterThan(100);
    for (const [key, text] of calls) expect([key, CONSOLE_MESSAGES[key]?.en]).toEqual([key, text]);
  });

  it('seeds no key the console does not use, and Polish for each with the same {tokens}', () => {
    const tokens = (s: string) => [...s.matchAll(/\{(\w+)[,}]/g)].map((m) => m[1]).sort();
    for (const [key, text] of Object.entries(CONSOLE_MESSAGES)) {
      expect([key, calls.has(key)]).toEqual([key, true]);
      expect(text.pl.trim()).not.toBe('');
      expect([key, tokens(text.pl)]).toEqual([key, tokens(text.en)]);
    }
  });
});
