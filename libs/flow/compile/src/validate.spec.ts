import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODEL_CODES, VALIDATION_CODES } from './codes';
import { parseFormAText } from './form-a';
import { emptyModel } from './model';
import { parseSource } from './source';
import { readDocument, validateDocument } from './pipeline';
import { validateModel } from './validate';

const SAMPLE = readFileSync(join(__dirname, '../test/fixtures/order-service.flow.yaml'), 'utf8');

/** Validates a form A YAML text with its source map. */
function check(yaml: string) {
  const parsed = parseSource(yaml);
  const read = parseFormAText(yaml);
  return validateModel(read.model, { map: parsed.map });
}

/** One minimal document per code, and the path the diagnostic must carry. */
const MINIMAL: Record<string, { doc: string; path: string; line?: number }> = {
  FDL002: { doc: 'title: t\n', path: '/version', line: 1 },
  FDL010: { doc: 'version: "1.0"\nevents:\n  - name: e\n    action: made\n', path: '/events/0/entity_type', line: 3 },
  FDL011: { doc: 'version: "1.0"\nevents:\n  - name: e\n    entity_type: thing\n', path: '/events/0/action', line: 3 },
  FDL012: {
    doc: 'version: "1.0"\nevents:\n  - name: e\n    entity_type: t\n    action: a\n    payload:\n      ok: string\n      nested:\n        type: object\n        fields:\n          bad: strnig\n',
    path: '/events/0/payload/nested/fields/bad/type',
    line: 11,
  },
  FDL020: { doc: 'version: "1.0"\nworkflows:\n  - name: w\n    steps:\n      - kind: end\n', path: '/workflows/0/steps/0/id', line: 5 },
  FDL021: { doc: 'version: "1.0"\nworkflows:\n  - name: w\n    steps:\n      - id: a\n        next: nowhere\n', path: '/workflows/0/steps/0/next', line: 6 },
  FDL022: { doc: 'version: "1.0"\nworkflows:\n  - name: w\n    steps:\n      - id: a\n        on_error: nowhere\n', path: '/workflows/0/steps/0/on_error', line: 6 },
  FDL023: { doc: 'version: "1.0"\nworkflows:\n  - name: w\n    steps:\n      - id: a\n        action: missing\n', path: '/workflows/0/steps/0/action', line: 6 },
  FDL024: { doc: 'version: "1.0"\nworkflows:\n  - name: w\n    steps:\n      - id: a\n        kind: emit\n        event: missing\n', path: '/workflows/0/steps/0/event', line: 7 },
  FDL030: { doc: 'version: "1.0"\nmodules:\n  - name: a\n    depends_on: [b]\n', path: '/modules/0/depends_on/0', line: 4 },
  FDL040: { doc: 'version: "1.0"\nschedules:\n  - name: s\n    cron: "0 * * * *"\n    action: missing\n', path: '/schedules/0/action', line: 5 },
  FDL050: { doc: 'version: "1.0"\nchannels:\n  - name: c\n    protocol: carrier-pigeon\n', path: '/channels/0/protocol', line: 4 },
  FDL060: {
    doc: 'version: "1.0"\nactions:\n  - name: a\n    output:\n      list:\n        type: array\n        items: decimal\n',
    path: '/actions/0/output/list/items/type',
    line: 7,
  },
};

describe('validateModel', () => {
  it('finds nothing in the sample', () => {
    const diagnostics = check(SAMPLE);
    expect(diagnostics).toEqual([]);
  });

  it('gives FDL001 for a nil document', () => {
    for (const nil of [null, undefined]) expect(validateModel(nil)).toEqual([{ code: 'FDL001', severity: 'error', message: 'the document is nil', path: '' }]);
  });

  it('has a minimal document for every code of the spec table', () => {
    expect(['FDL001', ...Object.keys(MINIMAL)].sort()).toEqual(Object.keys(VALIDATION_CODES).sort());
  });

  it.each(Object.entries(MINIMAL))('%s is triggered by a minimal document, with the table severity, path and position', (code, { doc, path, line }) => {
    const diagnostics = check(doc);
    expect(diagnostics).toHaveLength(1);
    const [d] = diagnostics;
    expect(d.code).toBe(code);
    expect(d.severity).toBe(VALIDATION_CODES[code as keyof typeof VALIDATION_CODES].severity);
    expect(d.path).toBe(path);
    expect(d.position?.line).toBe(line);
    expect(d.message.length).toBeGreaterThan(10);
  });

  it('names the item in its messages', () => {
    expect(check(MINIMAL.FDL021.doc)[0].message).toBe('workflow "w": step "a" has next "nowhere", which is not a step of this workflow');
    expect(check(MINIMAL.FDL030.doc)[0].message).toBe('module "a" depends on unknown module "b"');
    expect(check(MINIMAL.FDL050.doc)[0].message).toContain('channel "c": protocol "carrier-pigeon"');
  });

  it('accepts every type of the table, aliases included, and every protocol', () => {
    const types = ['string', 'integer', 'int', 'float', 'number', 'boolean', 'bool', 'array', 'object', 'date', 'datetime', 'uuid', 'binary', 'enum', 'ref', 'any'];
    const payload = Object.fromEntries(types.map((t) => [t, { type: t }]));
    const model = emptyModel({
      version: '1.0',
      events: [{ name: 'e', entity_type: 't', action: 'a', payload }],
      actions: [{ name: 'a', input: payload, output: payload }],
      channels: ['kafka', 'nats', 'redis', 'http', 'grpc', 'ws', 'websocket', 'amqp'].map((protocol) => ({ name: protocol, protocol })),
    });
    expect(validateModel(model)).toEqual([]);
  });

  it('reports whitespace-only versions and several problems in document order', () => {
    const model = emptyModel({
      version: ' ',
      events: [{ name: 'e' }],
      workflows: [{ name: 'w', steps: [{ id: 'a', next: 'b', on_error: 'c' }] }],
    });
    expect(validateModel(model).map((d) => d.code)).toEqual(['FDL002', 'FDL010', 'FDL011', 'FDL021', 'FDL022']);
  });

  it('checks step references within their own workflow only', () => {
    const model = emptyModel({
      version: '1.0',
      workflows: [
        { name: 'w1', steps: [{ id: 'x' }] },
        { name: 'w2', steps: [{ id: 'y', next: 'x' }] },
      ],
    });
    expect(validateModel(model)).toEqual([expect.objectContaining({ code: 'FDL021', path: '/workflows/1/steps/0/next' })]);
  });
});

/** One minimal form A document per model code (errors beyond the spec's table), and the path it must carry. */
const MODEL_MINIMAL: Record<string, { doc: string; path: string; line: number; message: string }> = {
  CRON: {
    doc: 'version: "1.0"\nactions:\n  - name: a\nschedules:\n  - name: s\n    cron: "61 * * * *"\n    action: a\n',
    path: '/schedules/0/cron',
    line: 6,
    message: 'schedule "s": cron "61 * * * *" is invalid',
  },
  DUPLICATE_NAME: { doc: 'version: "1.0"\nmodules:\n  - name: billing\n  - name: billing\n', path: '/modules/1/name', line: 4, message: 'module name "billing" is already used by /modules/0' },
  FIELD_TYPE: { doc: 'version: "1.0"\nentities:\n  - name: order\n    fields:\n      total: decimal\n', path: '/entities/0/fields/total/type', line: 5, message: 'entity "order": field "total" has unrecognised type "decimal"' },
  EMPTY_ENUM: {
    doc: 'version: "1.0"\nentities:\n  - name: order\n    fields:\n      state:\n        type: enum\n        enum: []\n',
    path: '/entities/0/fields/state/enum',
    line: 7,
    message: 'entity "order": field "state" has an empty enum, so no value is valid',
  },
  UNKNOWN_EVENT: { doc: 'version: "1.0"\nactions:\n  - name: place\n    emits: [order.placed]\n', path: '/actions/0/emits/0', line: 4, message: 'action "place" emits unknown event "order.placed"' },
  HTTP_PATH: { doc: 'version: "1.0"\nactions:\n  - name: place\n    method: POST\n    path: orders\n', path: '/actions/0/path', line: 5, message: 'action "place": path "orders" must start with "/"' },
  HTTP_METHOD: { doc: 'version: "1.0"\nactions:\n  - name: place\n    method: FETCH\n    path: /orders\n', path: '/actions/0/method', line: 4, message: 'action "place": method "FETCH" is not one of GET' },
  DUPLICATE_STEP: {
    doc: 'version: "1.0"\nworkflows:\n  - name: w\n    steps:\n      - { id: a, kind: end }\n      - { id: a, kind: end }\n',
    path: '/workflows/0/steps/1/id',
    line: 6,
    message: 'workflow "w": step id "a" is already used by /workflows/0/steps/0',
  },
};

describe('channel operations', () => {
  it('names an unknown publish or subscribe event (UNKNOWN_EVENT), with its path and position', () => {
    const doc = 'version: "1.0"\nevents:\n  - { name: order.placed, entity_type: order, action: placed }\nchannels:\n  - name: orders\n    publish: { event: order.placed }\n    subscribe: { event: order.shipped }\n';
    expect(readDocument(doc).diagnostics).toEqual([
      expect.objectContaining({ code: 'UNKNOWN_EVENT', severity: 'error', path: '/channels/0/subscribe/event', position: expect.objectContaining({ line: 7 }), message: 'channel "orders": subscribe carries unknown event "order.shipped"' }),
    ]);
  });
});

describe('model checks beyond the spec table (errors)', () => {
  it.each(Object.entries(MODEL_MINIMAL))('%s is an error of a minimal document, with its path and position', (code, { doc, path, line, message }) => {
    const { diagnostics } = readDocument(doc);
    expect(diagnostics).toEqual([expect.objectContaining({ code, severity: 'error', path, position: expect.objectContaining({ line }), message: expect.stringContaining(message) })]);
    expect(MODEL_CODES[code as keyof typeof MODEL_CODES].severity).toBe('error');
  });

  it('refuses cron expressions that are not five valid fields, and a schedule without one', () => {
    const cron = (c: string) => validateModel(emptyModel({ version: '1.0', schedules: [{ name: 's', cron: c }] })).map((d) => d.code);
    expect(cron('*/5 * * * *')).toEqual([]);
    expect(cron('0 9 * * MON-FRI')).toEqual([]);
    for (const bad of ['', '* * * *', '0 0 * * * *', 'every day', '0 25 * * *']) expect(cron(bad)).toEqual(['CRON']);
  });

  it('checks workflow triggers and nested enums, and names duplicates in every section', () => {
    const model = emptyModel({
      version: '1.0',
      entities: [{ name: 'e', fields: { tags: { type: 'array', items: { type: 'string', enum: [] } } } }, { name: 'e', fields: {} }],
      events: [{ name: 'ev', entity_type: 'e', action: 'made' }],
      workflows: [{ name: 'w', triggers: ['ev', 'gone'], steps: [{ id: 'a' }] }],
    });
    expect(validateModel(model).map((d) => [d.code, d.path])).toEqual([
      ['DUPLICATE_NAME', '/entities/1/name'],
      ['EMPTY_ENUM', '/entities/0/fields/tags/items/enum'],
      ['UNKNOWN_EVENT', '/workflows/0/triggers/1'],
    ]);
  });

  it('keeps the table severities for event payload and action field types (FDL012, FDL060 warnings)', () => {
    expect(validateModel(emptyModel({ version: '1.0', actions: [{ name: 'a', input: { x: { type: 'decimal' } } }] }))).toEqual([expect.objectContaining({ code: 'FDL060', severity: 'warning' })]);
  });

  it('does not check emits against events when the source format cannot declare them (OpenAPI)', () => {
    const openapi = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: { '/orders': { post: { operationId: 'place', 'x-emits': ['order.placed'], responses: { '201': { description: 'ok' } } } } },
    });
    expect(readDocument(openapi).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('form A version', () => {
  it.each(['"2.0"', '"1.1"', '"1.0.0"', '2'])('warns (UNSUPPORTED_VERSION) about version %s, naming the versions it reads', (version) => {
    const { diagnostics } = readDocument(`version: ${version}\ntitle: t\n`);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'UNSUPPORTED_VERSION', severity: 'warning', path: '/version', position: expect.objectContaining({ line: 1 }), message: expect.stringContaining('(it reads "1.0")') }),
    ]);
  });

  it.each(['"1.0"', '1.0', '1'])('reads version %s without a diagnostic', (version) => {
    expect(readDocument(`version: ${version}\ntitle: t\n`).diagnostics).toEqual([]);
  });
});

describe('validateDocument', () => {
  it('adds a TOOL_NAME warning for every tool the export would rename, with its position', () => {
    const doc = 'version: "1.0"\nactions:\n  - name: order.place\n  - name: order_place\nentities:\n  - name: order\n    fields: {}\n';
    const { diagnostics } = validateDocument(doc);
    expect(diagnostics.map((d) => [d.code, d.severity, d.path, d.position?.line])).toEqual([
      ['TOOL_NAME', 'warning', '/actions/0/name', 3],
      ['TOOL_NAME', 'warning', '/actions/1/name', 4],
    ]);
    expect(diagnostics[1].message).toBe('tool name "order_place" (from "order_place") is already used; renamed to "order_place_2"');
  });
});
