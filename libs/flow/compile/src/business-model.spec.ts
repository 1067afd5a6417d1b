import { golden, loadFixture, toJson, toYaml } from '../test/format-helpers';
import { readBusinessModel, writeBusinessModel } from './business-model';
import type { ApiModel } from './model';
import { parseSource } from './source';
import { validateModel } from './validate';

const shop = loadFixture('ir/shop.model.json') as ApiModel;
const retail = loadFixture('business-model/retail.bm.yaml');

describe('readBusinessModel', () => {
  it('normalises domains to modules, fields to `any` unless typed, processes to workflows of action steps (golden)', () => {
    const result = readBusinessModel(retail);
    golden('business-model/retail.model.json', toJson(result));
    expect(result.diagnostics).toEqual([]);
    const { model } = result;
    expect(model.modules).toEqual([
      { name: 'inventory', description: 'Stock per store' },
      { name: 'sales', description: 'Customer orders' },
    ]);
    expect(model.entities[1]).toEqual({
      name: 'StockLevel',
      module: 'inventory',
      fields: { sku: { type: 'any' }, quantity: { type: 'integer', required: true }, store: { type: 'string' } },
    });
    expect(model.workflows[0]).toEqual({
      name: 'Replenish',
      module: 'inventory',
      triggers: ['StockLow'],
      steps: [
        { id: 'ReserveSupplier', kind: 'action', action: 'ReserveSupplier', next: 'OrderStock' },
        { id: 'OrderStock', kind: 'action', action: 'OrderStock', next: 'NotifyStore' },
        { id: 'NotifyStore', kind: 'action', action: 'NotifyStore' },
      ],
    });
    expect(model.actions.map((a) => a.name)).toEqual(['ReserveSupplier', 'OrderStock', 'NotifyStore', 'Pick', 'Pack', 'Ship']);
    expect(model.apiVersion).toBe('0.3');
    expect(model.extensions?.['x-actors']).toEqual([
      { name: 'Customer', kind: 'person', description: 'Buys in the web shop' },
      { name: 'Warehouse system', kind: 'system' },
    ]);
  });

  it('gives a model the validator accepts without errors or warnings', () => {
    expect(validateModel(readBusinessModel(retail).model)).toEqual([]);
  });

  it('reports malformed items with their pointer and position', () => {
    const text = 'title: T\ndomains:\n  - name: d\n    entities:\n      - fields: [a]\n      - name: E\n        fields: [a, {b: 1}, {c: string}]\n    processes:\n      - name: P\n        steps: [s, s]\n        owner: me\n';
    const parsed = parseSource(text);
    const { model, diagnostics } = readBusinessModel(parsed.value, { map: parsed.map });
    expect(diagnostics.map((d) => [d.path, d.message, d.position?.line])).toEqual([
      ['/domains/0/entities/0', 'entity without a name left out', 5],
      ['/domains/0/entities/1/fields/1', 'a field must be a name, {name, type} or {<name>: <type>}; left out', 7],
      ['/domains/0/processes/0/owner', 'unknown key "owner" ignored', 11],
    ]);
    expect(model.entities[0].fields).toEqual({ a: { type: 'any' }, c: { type: 'string' } });
    // A repeated step name gets a suffixed id.
    expect(model.workflows[0].steps.map((s) => [s.id, s.action, s.next])).toEqual([
      ['s', 's', 's_2'],
      ['s_2', 's', undefined],
    ]);
    expect(readBusinessModel([]).diagnostics).toEqual([{ code: 'FMT', severity: 'error', path: '', message: 'a business model document must be a mapping' }]);
  });
});

describe('writeBusinessModel', () => {
  it('writes one domain per module with its entities, events and processes (golden)', () => {
    const { document, diagnostics } = writeBusinessModel(shop);
    expect(diagnostics).toEqual([]);
    golden('business-model/shop.bm.yaml', toYaml(document));
    expect(document.domains.map((d) => [d.name, d.entities.map((e) => e.name), d.events.map((e) => e.name), d.processes.map((p) => p.name)])).toEqual([
      ['catalog', ['product'], ['ProductPriced'], []],
      ['orders', ['order'], ['OrderPlaced', 'OrderPaid'], ['checkout']],
    ]);
    // The end step is left out; the emit step is named after its event.
    expect(document.domains[1].processes[0]).toEqual({
      name: 'checkout',
      description: 'From a placed order to a paid one',
      triggers: ['OrderPlaced'],
      steps: ['chargeOrder', 'notifyCustomer', 'OrderPaid', 'cancelOrder'],
    });
  });

  it('writes one domain from the top-level items when there are no modules', () => {
    const { document } = writeBusinessModel({ ...shop, modules: [] });
    expect(document.domains).toHaveLength(1);
    expect(document.domains[0]).toMatchObject({ name: 'Shop', description: shop.description });
    expect(document.domains[0].entities.map((e) => e.name)).toEqual(['product', 'order']);
    expect(document.domains[0].events).toHaveLength(3);
  });

  it('leaves out items of no known module, with a warning', () => {
    const { diagnostics } = writeBusinessModel({ ...shop, entities: [...shop.entities, { name: 'stray', fields: {} }] });
    expect(diagnostics).toEqual([{ code: 'FMT', severity: 'warning', path: '/entities/2', message: 'entity "stray" belongs to no module; left out of the business model' }]);
  });

  it('writes typed fields on request, which read back with their types', () => {
    const { document } = writeBusinessModel(shop, { typedFields: true });
    expect(document.domains[0].entities[0].fields).toEqual([{ name: 'sku', type: 'string', required: true }, { name: 'title', type: 'string', required: true }, { name: 'price', type: 'number', required: true }, { name: 'tags', type: 'array' }, { name: 'released', type: 'date' }]);
    expect(readBusinessModel(document).model.entities[0].fields.price).toEqual({ type: 'number', required: true });
  });
});

describe('business model → IR → business model', () => {
  it('is lossless for the retail document', () => {
    const { model } = readBusinessModel(retail);
    expect(writeBusinessModel(model, { typedFields: true }).document).toEqual(retail);
  });

  it('IR → business model → IR keeps modules, entity and event membership, processes as workflows', () => {
    const back = readBusinessModel(writeBusinessModel(shop).document).model;
    expect(back.modules.map((m) => m.name)).toEqual(['catalog', 'orders']);
    expect(back.events.map(({ name, module, entity_type, action, topic }) => ({ name, module, entity_type, action, topic }))).toEqual(
      shop.events.map(({ name, module, entity_type, action, topic }) => ({ name, module, entity_type, action, topic })),
    );
    expect(back.workflows.map((w) => [w.name, w.triggers, w.steps.map((s) => s.action)])).toEqual([['checkout', ['OrderPlaced'], ['chargeOrder', 'notifyCustomer', 'OrderPaid', 'cancelOrder']]]);
  });
});
