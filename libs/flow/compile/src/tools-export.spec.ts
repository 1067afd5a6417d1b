import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFormAText } from './form-a';
import { emptyModel } from './model';
import { exportTools, sanitizeToolName, TOOL_NAME_PATTERN, toolsToJson } from './tools-export';

const sample = parseFormAText(readFileSync(join(__dirname, '../test/fixtures/order-service.flow.yaml'))).model!;

describe('exportTools', () => {
  it('exports actions with nested properties, items, enum, format and required', () => {
    const { tools, diagnostics } = exportTools(sample, 'actions');
    expect(diagnostics).toEqual([]);
    expect(tools.map((t) => t.function.name)).toEqual(sample.actions.map((a) => a.name));
    const create = tools[0];
    expect(create).toEqual({
      type: 'function',
      function: {
        name: 'create_order',
        description: 'Place a new order (POST /orders)',
        parameters: {
          type: 'object',
          properties: {
            customer_id: { type: 'string', format: 'uuid' },
            items: {
              type: 'array',
              items: {
                type: 'object',
                description: 'One product line of an order',
                properties: { sku: { type: 'string' }, quantity: { type: 'integer' }, unit_price: { type: 'number' }, gift_wrap: { type: 'boolean' } },
                required: ['sku', 'quantity', 'unit_price'],
              },
            },
            currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] },
          },
          required: ['customer_id', 'items'],
        },
      },
    });
    const noInput = tools.find((t) => t.function.name === 'expire_pending_orders')!;
    expect(noInput.function.parameters).toEqual({ type: 'object', properties: {}, required: [] });
  });

  it('exports commands only', () => {
    const { tools } = exportTools(sample, 'commands');
    expect(tools.map((t) => t.function.name)).toEqual(['create_order', 'cancel_order', 'reserve_stock', 'charge_payment', 'notify_customer', 'expire_pending_orders']);
  });

  it('exports entity lookups by id, else by the required fields', () => {
    const { tools } = exportTools(sample, 'entities');
    expect(tools.map((t) => t.function.name)).toEqual(['get_customer', 'get_line_item', 'get_order']);
    expect(tools[0].function.parameters).toEqual({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] });
    expect(tools[1].function.parameters).toEqual({
      type: 'object',
      properties: { sku: { type: 'string' }, quantity: { type: 'integer' }, unit_price: { type: 'number' } },
      required: ['sku', 'quantity', 'unit_price'],
    });
    expect(tools[0].function.description).toBe('Look up a customer: A person or company that places orders');
    const { tools: bare } = exportTools(emptyModel({ entities: [{ name: 'note', fields: { text: { type: 'string' } } }] }), 'entities');
    expect(bare[0].function).toEqual({ name: 'get_note', description: 'Look up a note', parameters: { type: 'object', properties: {}, required: [] } });
    // `id` is required in a lookup even when the entity does not mark it.
    const { tools: optionalId } = exportTools(emptyModel({ entities: [{ name: 'tag', fields: { id: { type: 'int' }, label: { type: 'string', required: true } } }] }), 'entities');
    expect(optionalId[0].function.parameters).toEqual({ type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] });
  });

  it('combines actions and entity lookups for all, without listing commands twice', () => {
    const { tools, diagnostics } = exportTools(sample, 'all');
    expect(tools).toHaveLength(sample.actions.length + sample.entities.length);
    // The sample has an action named get_order and an entity order: the lookup is renamed.
    expect(tools.map((t) => t.function.name).slice(-3)).toEqual(['get_customer', 'get_line_item', 'get_order_2']);
    expect(diagnostics).toEqual([
      { code: 'TOOL_NAME', severity: 'warning', message: 'tool name "get_order" (from "get_order") is already used; renamed to "get_order_2"', path: '/entities/2/name' },
    ]);
    expect(JSON.parse(toolsToJson(tools))).toEqual(tools);
  });

  it('sanitises names and resolves collisions deterministically in document order', () => {
    const model = emptyModel({ actions: [{ name: 'order.create' }, { name: 'order create' }, { name: 'order_create' }, { name: '' }, { name: 'x'.repeat(70) }, { name: 'x'.repeat(64) }] });
    const { tools, diagnostics } = exportTools(model, 'actions');
    expect(tools.map((t) => t.function.name)).toEqual(['order_create', 'order_create_2', 'order_create_3', 'tool', 'x'.repeat(64), 'x'.repeat(62) + '_2']);
    for (const t of tools) expect(t.function.name).toMatch(TOOL_NAME_PATTERN);
    // Every renamed tool is reported: sanitised (0, 1, 3, 4) and de-duplicated (1, 2, 5).
    expect(diagnostics.map((d) => [d.code, d.severity, d.path])).toEqual([
      ['TOOL_NAME', 'warning', '/actions/0/name'],
      ['TOOL_NAME', 'warning', '/actions/1/name'],
      ['TOOL_NAME', 'warning', '/actions/2/name'],
      ['TOOL_NAME', 'warning', '/actions/3/name'],
      ['TOOL_NAME', 'warning', '/actions/4/name'],
      ['TOOL_NAME', 'warning', '/actions/5/name'],
    ]);
    expect(diagnostics[0].message).toBe('tool name "order.create" is not 1 to 64 letters, digits, "_" or "-"; renamed to "order_create"');
    expect(sanitizeToolName('ünï/cødé')).toBe('_n__c_d_');
  });

  it('handles any, unknown types, unresolved and recursive refs', () => {
    const model = emptyModel({
      entities: [{ name: 'node', fields: { id: { type: 'string' }, parent: { type: 'ref', ref: 'node' } } }],
      actions: [
        {
          name: 'a',
          input: {
            blob: { type: 'any', description: 'anything' },
            odd: { type: 'decimal' },
            lost: { type: 'ref', ref: 'ghost' },
            tree: { type: 'ref', ref: 'node' },
            when: { type: 'datetime', required: true },
            list: { type: 'array' },
            obj: { type: 'object' },
          },
        },
      ],
    });
    const p = exportTools(model, 'actions').tools[0].function.parameters;
    expect(p.properties).toEqual({
      blob: { description: 'anything' },
      odd: {},
      lost: {},
      tree: { type: 'object', properties: { id: { type: 'string' }, parent: { type: 'object' } } },
      when: { type: 'string', format: 'date-time' },
      list: { type: 'array', items: {} },
      obj: { type: 'object' },
    });
    expect(p.required).toEqual(['when']);
  });

  it('gives FDL001 and an empty list for a nil model', () => {
    for (const nil of [null, undefined]) expect(exportTools(nil, 'all')).toEqual({ tools: [], diagnostics: [{ code: 'FDL001', severity: 'error', message: 'the document is nil', path: '' }] });
  });
});
