import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFormAText } from './form-a';
import { emptyModel, type ModelModule } from './model';
import { compileModel, orderModules } from './modules-order';
import { parseSource } from './source';

const mods = (spec: Record<string, string[]>): ModelModule[] => Object.entries(spec).map(([name, deps]) => (deps.length ? { name, depends_on: deps } : { name }));
const names = (ms: ModelModule[]) => ms.map((m) => m.name);

describe('orderModules', () => {
  it('orders by depends_on, stable in document order', () => {
    const r = orderModules(mods({ orders: ['customers', 'catalog'], billing: ['orders'], customers: [], catalog: ['customers'], audit: [] }));
    expect(names(r.modules)).toEqual(['customers', 'catalog', 'orders', 'billing', 'audit']);
    expect(r.diagnostics).toEqual([]);
  });

  it('keeps document order when nothing depends on anything, ignores unknown modules', () => {
    const r = orderModules(mods({ c: [], a: ['ghost'], b: [] }));
    expect(names(r.modules)).toEqual(['c', 'a', 'b']);
    expect(r.diagnostics).toEqual([]);
  });

  it('names a two-module cycle and still places every module once', () => {
    const r = orderModules(mods({ x: [], a: ['b'], b: ['a'], c: ['a'] }));
    expect(r.diagnostics).toEqual([{ code: 'CYCLE', severity: 'error', message: 'module dependency cycle: a -> b -> a', path: '/modules/1/depends_on' }]);
    expect(names(r.modules)).toEqual(['x', 'a', 'b', 'c']);
  });

  it('names longer cycles, self-dependencies and separate cycles one each', () => {
    const r = orderModules(mods({ a: ['b'], b: ['c'], c: ['a'], s: ['s'], p: ['q'], q: ['p', 'a'] }));
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      'module dependency cycle: a -> b -> c -> a',
      'module dependency cycle: s -> s',
      'module dependency cycle: p -> q -> p',
    ]);
    expect(new Set(names(r.modules)).size).toBe(6);
  });

  it('finds the shortest way round inside a tangled component', () => {
    const r = orderModules(mods({ a: ['b', 'c'], b: ['c'], c: ['a'] }));
    expect(r.diagnostics.map((d) => d.message)).toEqual(['module dependency cycle: a -> c -> a']);
  });
});

describe('compileModel', () => {
  it('validates and orders; the argument is not modified', () => {
    const model = emptyModel({ version: '1.0', modules: mods({ b: ['a'], a: [] }) });
    const r = compileModel(model);
    expect(names(r.model!.modules)).toEqual(['a', 'b']);
    expect(names(model.modules)).toEqual(['b', 'a']);
    expect(r.diagnostics).toEqual([]);
  });

  it('returns validation then cycle diagnostics, with positions from the source map', () => {
    const text = 'modules:\n  - name: a\n    depends_on: [b, ghost]\n  - name: b\n    depends_on: [a]\n';
    const { map } = parseSource(text);
    const r = compileModel(parseFormAText(text).model, { map });
    expect(r.diagnostics.map((d) => [d.code, d.path, d.position?.line])).toEqual([
      ['FDL002', '/version', 1],
      ['FDL030', '/modules/0/depends_on/1', 3],
      ['CYCLE', '/modules/0/depends_on', 3],
    ]);
  });

  it('gives FDL001 and no model for a nil document', () => {
    expect(compileModel(null)).toEqual({ model: null, diagnostics: [expect.objectContaining({ code: 'FDL001' })] });
  });

  it('orders the sample cleanly', () => {
    const { model } = parseFormAText(readFileSync(join(__dirname, '../test/fixtures/order-service.flow.yaml')));
    const r = compileModel(model);
    expect(r.diagnostics).toEqual([]);
    expect(names(r.model!.modules)).toEqual(['customers', 'catalog', 'orders']);
  });
});
