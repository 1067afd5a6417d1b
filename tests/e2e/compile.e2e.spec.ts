import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, testEnv, token } from '../support/http';

/** The compile pipeline through the gateway (issue 5 item 7). */

const sample = readFileSync(path.resolve(__dirname, '../../libs/flow/compile/test/fixtures/order-service.flow.yaml'), 'utf8');

describe('compile, validate and tools routes', () => {
  let platform: Standalone;
  let admin: string;
  let api: string;
  const yaml = (body: string) => ({ headers: { 'content-type': 'application/yaml' }, body });

  beforeAll(async () => {
    platform = await startStandalone({ env: testEnv({ FLOW_MAX_DOCUMENT_BYTES: '200000' }) });
    admin = await token('alice', ['admin:access']);
    api = `${platform.url}/api/v1`;
  });
  afterAll(() => platform?.close());

  it('converts form A to OpenAPI with its content type and diagnostics headers', async () => {
    const res = await call(`${api}/flows/compile?from=flowdef&to=openapi`, { method: 'POST', bearer: admin, ...yaml(sample) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/vnd.oai.openapi+json');
    expect(res.headers.get('x-diagnostics-errors')).toBe('0');
    await expect(SwaggerParser.validate(res.body)).resolves.toBeDefined();
  });

  it('converts through every format and back (auto-detected sources)', async () => {
    const asyncapi = await call(`${api}/flows/compile?to=asyncapi`, { method: 'POST', bearer: admin, ...yaml(sample) });
    expect(asyncapi.status).toBe(200);
    expect(parseYaml(asyncapi.text).asyncapi).toBe('2.6.0');
    const back = await call(`${api}/flows/compile?to=json`, { method: 'POST', bearer: admin, ...yaml(asyncapi.text) });
    expect(back.status).toBe(200);
    expect(back.body.events.length).toBeGreaterThan(0);
    const envelope = await call(`${api}/flows/compile?to=businessmodel&envelope=true`, { method: 'POST', bearer: admin, ...yaml(sample) });
    expect(envelope.body).toMatchObject({ format: 'businessmodel', contentType: 'application/yaml', diagnostics: [] });
    expect(parseYaml(envelope.body.document).domains.length).toBeGreaterThan(0);
  });

  it('validates with codes, paths and positions, and answers SARIF on request', async () => {
    const doc = 'version: "1.0"\nevents:\n  - name: order_placed\n    action: placed\n';
    const res = await call(`${api}/flows/validate`, { method: 'POST', bearer: admin, ...yaml(doc) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, summary: { errors: 1, warnings: 0 } });
    expect(res.body.diagnostics[0]).toMatchObject({ code: 'FDL010', severity: 'error', path: expect.stringMatching(/^\/events\/0/), position: { line: expect.any(Number), column: expect.any(Number) } });
    const sarif = await call(`${api}/flows/validate?report=sarif`, { method: 'POST', bearer: admin, ...yaml(doc) });
    expect(sarif.body.version).toBe('2.1.0');
    // The sample has no errors; its action get_order and entity order's lookup tool share a name (TOOL_NAME).
    const clean = await call(`${api}/flows/validate`, { method: 'POST', bearer: admin, ...yaml(sample) });
    expect(clean.body).toMatchObject({ valid: true, summary: { errors: 0, warnings: 1 } });
    expect(clean.body.diagnostics).toEqual([expect.objectContaining({ code: 'TOOL_NAME', severity: 'warning', path: '/entities/2/name', position: expect.objectContaining({ line: 59 }) })]);
  });

  const broken = [
    'version: "1.0"',
    'modules:',
    '  - name: billing',
    '  - name: billing',
    'entities:',
    '  - name: invoice',
    '    fields: { total: decimal, state: { type: enum, enum: [] } }',
    'actions:',
    '  - { name: pay, method: FETCH, path: "invoices/{id}", emits: [invoice.paid] }',
    'workflows:',
    '  - { name: dun, triggers: [invoice.overdue], steps: [{ id: s, action: pay }] }',
    'schedules:',
    '  - { name: nightly, cron: "0 0 * *", action: pay }',
    '',
  ].join('\n');
  const brokenCodes = ['DUPLICATE_NAME', 'FIELD_TYPE', 'EMPTY_ENUM', 'HTTP_METHOD', 'HTTP_PATH', 'UNKNOWN_EVENT', 'UNKNOWN_EVENT', 'CRON'];

  it('validate reports documents that would compile to broken output as errors', async () => {
    const res = await call(`${api}/flows/validate`, { method: 'POST', bearer: admin, ...yaml(broken) });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.diagnostics.filter((d: { severity: string }) => d.severity === 'error').map((d: { code: string }) => d.code).sort()).toEqual([...brokenCodes].sort());
  });

  it('compile answers 422 with every diagnostic when the document has errors, 200 with warnings only', async () => {
    for (const to of ['openapi', 'json']) {
      const res = await call(`${api}/flows/compile?to=${to}`, { method: 'POST', bearer: admin, ...yaml(broken) });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ statusCode: 422, code: 'DOCUMENT_HAS_ERRORS', message: expect.stringContaining('the document has errors') });
      expect(res.body.diagnostics.filter((d: { severity: string }) => d.severity === 'error')).toHaveLength(brokenCodes.length);
    }
    const graph = 'flowdef: "1.0"\ninfo: { title: g }\nnodes:\n  in: { kind: source }\n  go: { kind: teleport }\nedges:\n  - { from: in, to: go, delivery: { mode: pigeon } }\n  - { from: go, to: nowhere }\n';
    const formB = await call(`${api}/flows/compile?to=json&envelope=true`, { method: 'POST', bearer: admin, ...yaml(graph) });
    expect(formB.status).toBe(422);
    expect(formB.body.diagnostics.map((d: { code: string; path: string }) => [d.code, d.path])).toEqual([
      ['NODE_KIND', '/nodes/go/kind'],
      ['DELIVERY_MODE', '/edges/0/delivery/mode'],
      ['UNKNOWN_NODE', '/edges/1/to'],
    ]);
    const warned = await call(`${api}/flows/compile?to=json`, { method: 'POST', bearer: admin, ...yaml('version: "1.0"\nchannels:\n  - name: c\n    protocol: carrier-pigeon\n') });
    expect(warned.status).toBe(200);
    expect(warned.headers.get('x-diagnostics-warnings')).toBe('1');
  });

  it('tools answers 422 with every diagnostic when the document has errors, like compile', async () => {
    const twice = 'version: "1.0"\nactions:\n  - { name: pay, kind: command }\n  - { name: pay, kind: command }\n';
    const res = await call(`${api}/flows/tools`, { method: 'POST', bearer: admin, ...yaml(twice) });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ statusCode: 422, code: 'DOCUMENT_HAS_ERRORS', message: expect.stringContaining('DUPLICATE_NAME') });
    expect(res.body.diagnostics.filter((d: { severity: string }) => d.severity === 'error')).toEqual([expect.objectContaining({ code: 'DUPLICATE_NAME', path: '/actions/1/name' })]);
    expect(res.body.tools).toBeUndefined();
    const broke = await call(`${api}/flows/tools`, { method: 'POST', bearer: admin, ...yaml(broken) });
    expect(broke.status).toBe(422);
    expect(broke.body.diagnostics.filter((d: { severity: string }) => d.severity === 'error')).toHaveLength(brokenCodes.length);
  });

  it('exports tools', async () => {
    const res = await call(`${api}/flows/tools?select=entities`, { method: 'POST', bearer: admin, ...yaml(sample) });
    expect(res.status).toBe(200);
    expect(res.body.tools.length).toBeGreaterThan(0);
    expect(res.body.tools[0]).toMatchObject({ type: 'function', function: { name: expect.stringMatching(/^get_/), parameters: { type: 'object' } } });
  });

  it('treats a JSON null document like a YAML null one: FDL001 for validate, compile and tools', async () => {
    const bodies = [yaml('null\n'), { headers: { 'content-type': 'application/json' }, body: 'null' }];
    for (const body of bodies) {
      const validated = await call(`${api}/flows/validate`, { method: 'POST', bearer: admin, ...body });
      expect(validated.status).toBe(200);
      expect(validated.body).toMatchObject({ valid: false, summary: { errors: 1, warnings: 0 }, diagnostics: [{ code: 'FDL001', severity: 'error', path: '' }] });
      for (const route of ['compile?to=json', 'tools']) {
        const res = await call(`${api}/flows/${route}`, { method: 'POST', bearer: admin, ...body });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'INVALID_DOCUMENT', message: expect.stringContaining('the document is nil'), diagnostics: [expect.objectContaining({ code: 'FDL001' })] });
      }
    }
    // Any other JSON scalar is read as a document that is not a mapping, never as YAML text.
    const scalar = await call(`${api}/flows/validate`, { method: 'POST', bearer: admin, headers: { 'content-type': 'application/json' }, body: '"version: 1.0"' });
    expect(scalar.status).toBe(200);
    expect(scalar.body.valid).toBe(false);
    expect(scalar.body.diagnostics.map((d: { code: string }) => d.code)).not.toContain('FDL001');
  });

  it('answers 400 for unknown formats (listing the valid ones) and unreadable documents, 413 when too large', async () => {
    const unknown = await call(`${api}/flows/compile?to=pdf`, { method: 'POST', bearer: admin, ...yaml(sample) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('valid: json, yaml, flowdef');
    expect(unknown.body.valid).toContain('openapi');
    const broken = await call(`${api}/flows/compile?to=json`, { method: 'POST', bearer: admin, ...yaml('version: "1.0"\nevents: [\n') });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toMatch(/line \d+, column \d+/);
    expect(broken.body.diagnostics[0]).toMatchObject({ code: 'PARSE', position: { line: expect.any(Number) } });
    const big = await call(`${api}/flows/validate`, { method: 'POST', bearer: admin, ...yaml(`version: "1.0"\ndescription: "${'x'.repeat(210_000)}"\n`) });
    expect(big.status).toBe(413);
    expect((await call(`${api}/flows/compile?to=json`, { method: 'POST', bearer: await token('bob', []), ...yaml(sample) })).status).toBe(403);
  });
});
