import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VALIDATION_CODES } from './codes';
import { parseFormAText } from './form-a';
import { emptyModel } from './model';
import { parseSource } from './source';
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
