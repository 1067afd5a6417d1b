import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { expectGolden } from '../test/golden';
import { arbitraryModel } from '../test/model.arbitrary';
import { parseFormAText, readFormA, readIr, writeFormA, writeFormAText, writeIrText } from './form-a';
import { emptyModel } from './model';
import { parseSource } from './source';

const FIXTURES = join(__dirname, '../test/fixtures');
const GOLDEN = join(FIXTURES, 'golden');
const INPUTS: Record<string, string> = {
  'order-service': join(FIXTURES, 'order-service.flow.yaml'),
  shorthand: join(FIXTURES, 'form-a/shorthand.flow.json'),
  messy: join(FIXTURES, 'form-a/messy.flow.yaml'),
};

function read(name: string) {
  return parseFormAText(readFileSync(INPUTS[name]));
}

describe('form A reader goldens (fixture in, IR and diagnostics out)', () => {
  it.each(Object.keys(INPUTS))('%s', (name) => {
    const result = read(name);
    expect(result.model).not.toBeNull();
    expectGolden(join(GOLDEN, `${name}.read.json`), JSON.stringify(result, null, 2) + '\n');
  });
});

describe('form A writer goldens (IR in, form A out)', () => {
  it.each(Object.keys(INPUTS))('%s as YAML and JSON', (name) => {
    const ir = JSON.parse(readFileSync(join(GOLDEN, `${name}.read.json`), 'utf8')).model;
    expectGolden(join(GOLDEN, `${name}.form-a.yaml`), writeFormAText(ir, 'yaml'));
    expectGolden(join(GOLDEN, `${name}.form-a.json`), writeFormAText(ir, 'json'));
  });
});

describe('form A reader', () => {
  it('reads the sample without a diagnostic', () => {
    const { model, diagnostics } = read('order-service');
    expect(diagnostics).toEqual([]);
    expect(model!.modules.map((m) => m.name)).toEqual(['customers', 'catalog', 'orders']);
    expect(model!.entities.find((e) => e.name === 'order')!.fields.items).toEqual({ type: 'array', required: true, items: { type: 'ref', ref: 'line_item' } });
    expect(model!.channels[0]).toEqual({
      name: 'orders.order.created',
      description: 'New orders',
      protocol: 'kafka',
      publish: { event: 'order.created', operationId: 'publishOrderCreated' },
      subscribe: { event: 'order.created', operationId: 'onOrderCreated', groupId: 'fulfilment' },
    });
    expect(model!.extensions).toEqual({ 'x-owner': 'team-commerce' });
  });

  it('expands the field shorthand, keeps x- keys in extensions and reads JSON', () => {
    const { model, diagnostics } = read('shorthand');
    expect(diagnostics).toEqual([]);
    expect(model!.version).toBe('1.0');
    expect(model!.extensions).toEqual({ 'x-generator': { name: 'hand', rev: 3 } });
    const user = model!.entities[0];
    expect(user.extensions).toEqual({ 'x-table': 'users' });
    expect(user.fields.id).toEqual({ type: 'uuid' });
    expect(user.fields.email).toEqual({ type: 'string', required: true, format: 'email', extensions: { 'x-pii': true } });
    expect(user.fields.roles).toEqual({ type: 'array', items: { type: 'string' } });
    expect(user.fields.profile.fields).toEqual({ bio: { type: 'string' }, born: { type: 'date' } });
    expect(model!.actions[0]).toMatchObject({ method: 'POST', emits: ['user.created'] });
    expect(model!.channels[0].publish).toEqual({ event: 'user.created' });
  });

  it('reports wrong shapes as FMT diagnostics with source positions and keeps the rest', () => {
    const { model, diagnostics } = read('messy');
    expect(diagnostics.every((d) => d.position)).toBe(true);
    // An unknown HTTP method is an error (the operation could not be called); the rest are FMT warnings.
    expect(diagnostics.filter((d) => d.code !== 'FMT')).toEqual([expect.objectContaining({ code: 'HTTP_METHOD', severity: 'error', path: '/actions/0/method', message: expect.stringContaining('"FETCH"') })]);
    const at = (path: string) => diagnostics.find((d) => d.path === path);
    expect(at('/colour')).toMatchObject({ severity: 'warning', position: { line: 7, column: 1 } });
    expect(at('/extensions/not-x')).toBeDefined();
    expect(at('/modules')).toBeDefined();
    expect(at('/entities/0')).toBeDefined();
    expect(at('/entities/1/fields/b/type')).toBeDefined();
    expect(at('/actions/0/kind')).toBeDefined();
    expect(at('/schedules/0/cron')).toBeDefined();
    expect(model!.extensions).toEqual({ 'x-from-ir': 'kept', 'x-inline': 'also kept' });
    expect(model!.entities[0].fields).toEqual({
      a: { type: 'any' },
      b: { type: 'any', required: true },
      c: { type: 'string', enum: ['one', 2, true] },
      d: { type: 'integer', required: false },
    });
    expect(model!.workflows[0].steps).toEqual([{ id: '', kind: 'action', action: 'act' }, { id: 's2' }]);
    expect(model!.servers).toEqual({ a: { url: 'https://a.example.com' }, b: { url: '', protocol: 'http' } });
    expect(model!.flow).toEqual({ nodes: { n1: { kind: 'source' } }, edges: [{ from: 'n1', to: 'n2' }] });
  });

  it('gives FDL001 for a nil document and FMT for a non-mapping', () => {
    expect(readFormA(null)).toEqual({ model: null, diagnostics: [{ code: 'FDL001', severity: 'error', message: 'the document is nil', path: '' }] });
    expect(readFormA(undefined).diagnostics[0].code).toBe('FDL001');
    expect(readFormA([1, 2])).toMatchObject({ model: null, diagnostics: [{ code: 'FMT', severity: 'error' }] });
    expect(parseFormAText('').diagnostics[0].code).toBe('FDL001');
  });

  it('passes parse diagnostics through', () => {
    expect(parseFormAText('a: [1, 2').diagnostics[0]).toMatchObject({ code: 'PARSE' });
  });
});

describe('form A writer', () => {
  it('writes the shorthand for type-only fields, x- keys inline and no empty sections', () => {
    const model = emptyModel({
      version: '1.0',
      entities: [{ name: 'n', fields: { a: { type: 'string' }, b: { type: 'string', required: true } }, extensions: { 'x-k': 1 } }],
      extensions: { 'x-top': true },
    });
    expect(writeFormA(model)).toEqual({
      version: '1.0',
      entities: [{ name: 'n', fields: { a: 'string', b: { type: 'string', required: true } }, 'x-k': 1 }],
      'x-top': true,
    });
  });

  it('differs from the IR serialisation, which keeps extensions objects and empty sections', () => {
    const model = emptyModel({ version: '1.0', extensions: { 'x-top': true } });
    expect(JSON.parse(writeIrText(model, 'json'))).toEqual({ ...model });
    expect(JSON.parse(writeFormAText(model, 'json'))).toEqual({ version: '1.0', 'x-top': true });
  });
});

describe('round trips', () => {
  it('the sample: form A YAML and JSON texts read back to the same IR', () => {
    const { model } = read('order-service');
    for (const format of ['yaml', 'json'] as const) expect(parseFormAText(writeFormAText(model!, format))).toEqual({ model, diagnostics: [] });
  });

  it('IR -> form A -> IR is lossless on generated models (YAML and JSON text)', () => {
    fc.assert(
      fc.property(arbitraryModel(), fc.constantFrom('yaml' as const, 'json' as const), (model, format) => {
        const text = writeFormAText(model, format);
        const back = parseFormAText(text);
        expect(back.diagnostics).toEqual([]);
        expect(back.model).toEqual(model);
      }),
      { numRuns: 100 },
    );
  });

  it('IR -> form A plain object -> IR is lossless on generated models', () => {
    fc.assert(
      fc.property(arbitraryModel(), (model) => {
        expect(readFormA(writeFormA(model))).toEqual({ model, diagnostics: [] });
      }),
      { numRuns: 100 },
    );
  });

  it('the json and yaml formats (IR as is) read back with readIr', () => {
    fc.assert(
      fc.property(arbitraryModel(), fc.constantFrom('yaml' as const, 'json' as const), (model, format) => {
        const parsed = parseSource(writeIrText(model, format));
        expect(parsed.diagnostics).toEqual([]);
        expect(readIr(parsed.value)).toEqual({ model, diagnostics: [] });
      }),
      { numRuns: 60 },
    );
  });
});
