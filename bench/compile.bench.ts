import { parse as parseYaml, stringify } from 'yaml';
import { convertDocument } from '@flowplane/flow/compile';
import type { BenchResult } from './bench-result';

/** A generated form A document: 100 entities, 200 events, 500 actions, 10 modules. */
export function generatedDocument(): string {
  const modules = Array.from({ length: 10 }, (_, m) => ({ name: `mod${m}`, description: `Module ${m}`, version: '1.0.0', provides: [`cap${m}`], depends_on: m ? [`mod${m - 1}`] : [] }));
  const entities = Array.from({ length: 100 }, (_, i) => ({
    name: `entity${i}`,
    fields: {
      id: { type: 'uuid', required: true },
      name: { type: 'string', required: true },
      status: { type: 'enum', enum: ['new', 'active', 'closed'] },
      amount: { type: 'float' },
      createdAt: { type: 'datetime' },
      tags: { type: 'array', items: { type: 'string' } },
      owner: { type: 'ref', ref: `entity${(i + 1) % 100}` },
    },
  }));
  const events = Array.from({ length: 200 }, (_, i) => ({ name: `entity${i % 100}_${i < 100 ? 'created' : 'updated'}`, entity_type: `entity${i % 100}`, action: i < 100 ? 'created' : 'updated', topic: `entity${i % 100}.${i < 100 ? 'created' : 'updated'}`, payload: { id: { type: 'uuid', required: true }, at: { type: 'datetime' } } }));
  const actions = Array.from({ length: 500 }, (_, i) => ({
    name: `action${i}`,
    description: `Action number ${i}`,
    kind: i % 3 === 0 ? 'query' : 'command',
    method: i % 3 === 0 ? 'GET' : 'POST',
    path: `/things${i % 50}/{id}/op${i}`,
    input: { id: { type: 'uuid', required: true }, note: { type: 'string' }, count: { type: 'integer' } },
    output: { ok: { type: 'boolean', required: true }, entity: { type: 'ref', ref: `entity${i % 100}` } },
    emits: [`entity${i % 100}_updated`],
  }));
  return stringify({ version: '1.0', title: 'Generated', description: 'Benchmark document', modules, entities, events, actions }, { lineWidth: 0 });
}

function timePerOp(fn: () => unknown, minMs = 1500): number {
  fn();
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    fn();
    n++;
  }
  return (performance.now() - start) / n;
}

/**
 * Converting and validating a generated document (500 actions, 200 events, 100 entities) to
 * OpenAPI and to AsyncAPI, next to parsing the same YAML alone in the same run (goal: at most 5x).
 */
export async function run(): Promise<BenchResult[]> {
  const text = generatedDocument();
  const check = convertDocument(text, { to: 'openapi' });
  if (!check.output || check.diagnostics.some((d) => d.severity === 'error')) throw new Error(`the generated document does not convert: ${JSON.stringify(check.diagnostics.slice(0, 3))}`);
  // Alternating rounds, best of three each, so warm-up and CPU noise hit every side alike.
  let parseMs = Infinity;
  let openapiMs = Infinity;
  let asyncapiMs = Infinity;
  for (let round = 0; round < 3; round++) {
    parseMs = Math.min(parseMs, timePerOp(() => parseYaml(text), 700));
    openapiMs = Math.min(openapiMs, timePerOp(() => convertDocument(text, { to: 'openapi' }), 700));
    asyncapiMs = Math.min(asyncapiMs, timePerOp(() => convertDocument(text, { to: 'asyncapi' }), 700));
  }
  const kb = Math.round(Buffer.byteLength(text) / 1024);
  return [
    { name: `Compile ${kb} KB form A (500 actions, 200 events, 100 entities) to OpenAPI, validated, vs YAML parse alone`, ours: openapiMs, baseline: parseMs, unit: 'ms (lower is better)', ratio: openapiMs / parseMs, notes: `goal <= 5x the parse: ${openapiMs / parseMs <= 5 ? 'met' : 'NOT met'}` },
    { name: `Compile ${kb} KB form A to AsyncAPI, validated, vs YAML parse alone`, ours: asyncapiMs, baseline: parseMs, unit: 'ms (lower is better)', ratio: asyncapiMs / parseMs, notes: `goal <= 5x the parse: ${asyncapiMs / parseMs <= 5 ? 'met' : 'NOT met'}` },
  ];
}

if (require.main === module) {
  void run().then((rows) => {
    console.table(rows);
    console.log(JSON.stringify(rows));
  });
}
