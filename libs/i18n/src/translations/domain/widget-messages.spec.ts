import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WIDGET_MESSAGES } from './widget-messages';

/** The seeded English must be the widget's inline defaults, key for key, or a catalog would change its wording. */
describe('widget messages seed', () => {
  const source = readFileSync(path.resolve(__dirname, '../../../../client/widget/src/flowplane-chat.ts'), 'utf8');
  const calls = new Map<string, string>();
  for (const m of source.matchAll(/\bt\(\s*'([\w.]+)',\s*'((?:[^'\\]|\\.)*)'/g)) calls.set(m[1], m[2].replace(/\\'/g, "'"));

  it('seeds every key the widget uses, with its inline English default', () => {
    expect(calls.size).toBeGreaterThan(30);
    for (const [key, text] of calls) expect([key, WIDGET_MESSAGES[key]?.en]).toEqual([key, text]);
  });

  it('seeds no key the widget does not use, and Polish for each', () => {
    for (const [key, text] of Object.entries(WIDGET_MESSAGES)) {
      expect([key, calls.has(key)]).toEqual([key, true]);
      expect(text.pl.trim()).not.toBe('');
    }
  });
});
