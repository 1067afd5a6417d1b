import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { contextMap } from './contexts';
import { buildReport, commonPrefix, mergeKeys, ownsKey } from './report';
import { collectSources, scanSource } from './scan';

describe('scanning sources', () => {
  it('finds $t calls with literal keys and defaults in TSX, with their lines', () => {
    const src = [
      "import { $t } from '@flowplane/client';",
      "export const Pay = (p: { n: number }) => <button title={$t('cart.pay', 'Pay')}>",
      "  {$t(\"cart.items\", '{count, plural, one {# item} other {# items}}', { count: p.n })}</button>;",
      'const title = i18n.$t(`cart.title`, `Cart`) as string;',
      "$t('no.default');",
      "const notT = $tt('x', 'y') + t('a', 'b');",
    ].join('\n');
    const r = scanSource('src/pay.tsx', src);
    expect(r.keys).toEqual([
      { key: 'cart.pay', text: 'Pay', file: 'src/pay.tsx', line: 2 },
      { key: 'cart.items', text: '{count, plural, one {# item} other {# items}}', file: 'src/pay.tsx', line: 3 },
      { key: 'cart.title', text: 'Cart', file: 'src/pay.tsx', line: 4 },
      { key: 'no.default', file: 'src/pay.tsx', line: 5 },
    ]);
    expect(r.warnings).toEqual([]);
  });

  it('warns about keys and defaults that are not literals instead of guessing', () => {
    const r = scanSource('a.ts', "const k = 'x';\n$t(k, 'X');\n$t('y', `Hi ${k}`);\n$t(`z${k}`);");
    expect(r.keys).toEqual([{ key: 'y', file: 'a.ts', line: 3 }]);
    expect(r.warnings).toEqual([
      'a.ts:2: $t with a key that is not a string literal is skipped',
      'a.ts:3: the default of "y" is not a string literal; reported without text',
      'a.ts:4: $t with a key that is not a string literal is skipped',
    ]);
  });

  it('reads HTML: inline scripts, text and attribute occurrences (entities decoded), in source order; not comments or JSON', () => {
    const html = [
      '<html><body>',
      "<!-- $t('commented.out', 'No') -->",
      "<p>{{ $t('page.hello', 'Hello &amp; welcome') }}</p>",
      '<button :title="$t(&quot;page.button&quot;, &quot;Press&quot;)">x</button>',
      '<script type="module">',
      "  document.title = $t('page.title', \"Shop\");",
      '</script>',
      "<script type=\"application/json\">{\"a\": \"$t('json.key', 'J')\"}</script>",
      "<script type=\"text/x-template\"><b>{{ $t('tpl.key', 'T') }}</b></script>",
      '</body></html>',
    ].join('\n');
    const r = scanSource('page.html', html);
    expect(r.keys.map((k) => [k.key, k.text, k.line])).toEqual([
      ['page.hello', 'Hello & welcome', 3],
      ['page.button', 'Press', 4],
      ['page.title', 'Shop', 6],
      ['tpl.key', 'T', 9],
    ]);
  });

  it('walks folders in name order, skipping node_modules, dist and hidden folders', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'i18n-extract-'));
    for (const d of ['b', 'a', 'node_modules/x', 'dist', '.cache']) mkdirSync(path.join(dir, d), { recursive: true });
    for (const f of ['b/z.ts', 'b/a.jsx', 'a/page.html', 'a/readme.md', 'a/m.mjs', 'node_modules/x/i.js', 'dist/i.js', '.cache/i.js']) writeFileSync(path.join(dir, f), '');
    const { files, missing, unsupported } = collectSources([dir, path.join(dir, 'b/z.ts'), path.join(dir, 'nope'), path.join(dir, 'a/readme.md')]);
    expect(files.map((f) => path.relative(dir, f))).toEqual(['a/m.mjs', 'a/page.html', 'b/a.jsx', 'b/z.ts']);
    expect(missing).toEqual([path.join(dir, 'nope')]);
    expect(unsupported).toEqual([path.join(dir, 'a/readme.md')]);
  });
});

describe('merging keys', () => {
  it('keeps the first default of a key and warns once about a different one; a call without default does not count', () => {
    const { keys, warnings } = mergeKeys([
      { key: 'a', file: 'x.ts', line: 1 },
      { key: 'a', text: 'A', file: 'x.ts', line: 2 },
      { key: 'b', text: 'B', file: 'x.ts', line: 3 },
      { key: 'a', text: 'Other', file: 'y.ts', line: 4 },
      { key: 'a', text: 'Other', file: 'z.ts', line: 5 },
      { key: 'a', text: 'A', file: 'z.ts', line: 6 },
      { key: 'c', file: 'z.ts', line: 7 },
    ]);
    expect(keys.map((k) => [k.key, k.text])).toEqual([
      ['a', 'A'],
      ['b', 'B'],
      ['c', ''],
    ]);
    expect(warnings).toEqual(['y.ts:4: "a" has the default "Other" here but "A" at x.ts:2; keeping the first']);
  });

  it('leaves out keys the route would refuse', () => {
    const { keys, warnings } = mergeKeys([{ key: 'k'.repeat(201), text: 'x', file: 'f.ts', line: 1 }]);
    expect(keys).toEqual([]);
    expect(warnings[0]).toContain('is skipped');
  });
});

describe('contexts', () => {
  const notes = contextMap({ 'cart.*': 'Shopping cart', 'cart.pay': 'Pay button', 'cart.pay.*': 'Payment step', '*': 'General' });

  it('the most specific match wins: exact key, then the longest prefix, then *', () => {
    expect(notes.noteFor('cart.pay')).toBe('Pay button');
    expect(notes.noteFor('cart.pay.card')).toBe('Payment step');
    expect(notes.noteFor('cart.title')).toBe('Shopping cart');
    expect(notes.noteFor('home')).toBe('General');
    expect(contextMap({ 'a.*': 'A' }).noteFor('b')).toBeUndefined();
  });

  it('refuses a glob with * elsewhere than at its end and notes that are not strings', () => {
    expect(() => contextMap({ 'a.*.b': 'x' })).toThrow('a glob has one "*", at its end');
    expect(() => contextMap({ a: 1 })).toThrow('must be a string');
    expect(() => contextMap(['a'])).toThrow('JSON object');
  });
});

describe('the report', () => {
  const keys = mergeKeys([
    { key: 'shop.pay', text: 'Pay', file: 'a.ts', line: 1 },
    { key: 'shop.new', text: 'New', file: 'a.ts', line: 2 },
    { key: 'common.ok', text: 'OK', file: 'a.ts', line: 3 },
    { key: 'common.seeded', text: 'Seeded', file: 'a.ts', line: 4 },
    { key: 'plain', text: 'Plain', file: 'a.ts', line: 5 },
  ]).keys;
  const notes = contextMap({ 'shop.*': 'Shop page', 'common.*': 'Everywhere' });

  it('sends notes for new keys, keys the module reported first and keys no module reported; not for keys of another module', () => {
    const modulesOf = new Map([
      ['shop.pay', ['shop', 'admin-ui']],
      ['common.ok', ['core', 'shop']],
      ['common.seeded', []],
    ]);
    const { body, withheld } = buildReport(keys, 'shop', 'web', notes, modulesOf);
    expect(body).toEqual({
      ns: 'web',
      keys: [
        { key: 'shop.pay', text: 'Pay', module: 'shop', context: 'Shop page' },
        { key: 'shop.new', text: 'New', module: 'shop', context: 'Shop page' },
        { key: 'common.ok', text: 'OK', module: 'shop' },
        { key: 'common.seeded', text: 'Seeded', module: 'shop', context: 'Everywhere' },
        { key: 'plain', text: 'Plain', module: 'shop' },
      ],
    });
    expect(withheld).toEqual([{ key: 'common.ok', owner: 'core' }]);
    expect(ownsKey(undefined, 'x')).toBe(true);
  });

  it('the default namespace is left out of the body; the common prefix narrows the ownership read', () => {
    expect(buildReport(keys, 'shop', '', undefined, new Map()).body.ns).toBeUndefined();
    expect(commonPrefix(['shop.pay', 'shop.new', 'shop.new.x'])).toBe('shop.');
    expect(commonPrefix(['a', 'b'])).toBe('');
  });
});
