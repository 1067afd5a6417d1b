import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { createQdrantVectorStore } from './qdrant-vector-store.adapter';
import type { VectorFilter } from './vector-store.port';

/**
 * No Qdrant server can run here, so the adapter's requests are held against Qdrant's own REST
 * description: every request the adapter sends to a recording server is type-checked (excess
 * properties included) against the request body type of its operation in the schema that
 * @qdrant/js-client-rest generates from Qdrant's OpenAPI document. The adapter builds filters
 * dynamically and casts them, so the compiler alone does not see what goes on the wire.
 */

interface Recorded {
  method: string;
  path: string;
  body: unknown;
}

/** The operations of Qdrant's REST API the adapter calls, by method and path shape. */
const OPERATIONS: Array<[method: string, path: RegExp, operation: string]> = [
  ['PUT', /^\/collections\/[^/]+$/, 'create_collection'],
  ['PUT', /^\/collections\/[^/]+\/points$/, 'upsert_points'],
  ['POST', /^\/collections\/[^/]+\/points\/query$/, 'query_points'],
  ['POST', /^\/collections\/[^/]+\/points\/scroll$/, 'scroll_points'],
  ['POST', /^\/collections\/[^/]+\/points\/delete$/, 'delete_points'],
  ['POST', /^\/collections\/[^/]+\/points\/count$/, 'count_points'],
  ['POST', /^\/collections\/aliases$/, 'update_aliases'],
];

const ok = (result: unknown) => JSON.stringify({ result, status: 'ok', time: 0 });

/** Answers each route the adapter uses with the smallest valid Qdrant answer, recording the request. */
async function recordingQdrant(): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const collections = new Map<string, { size: number; distance: string }>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => (text += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://qdrant');
      const body = text ? (JSON.parse(text) as unknown) : undefined;
      requests.push({ method: req.method ?? 'GET', path: url.pathname, body });
      const name = /^\/collections\/([^/]+)/.exec(url.pathname)?.[1];
      res.setHeader('content-type', 'application/json');
      const p = url.pathname;
      if (req.method === 'GET' && p === '/collections') return res.end(ok({ collections: [...collections.keys()].map((n) => ({ name: n })) }));
      if (req.method === 'GET' && p === '/aliases') return res.end(ok({ aliases: [] }));
      if (req.method === 'POST' && p === '/collections/aliases') return res.end(ok(true));
      if (req.method === 'PUT' && name && p === `/collections/${name}`) {
        const vectors = (body as { vectors: { size: number; distance: string } }).vectors;
        collections.set(name, vectors);
        return res.end(ok(true));
      }
      if (req.method === 'GET' && name && p === `/collections/${name}`) {
        const c = collections.get(name);
        if (!c) {
          res.statusCode = 404;
          return res.end(JSON.stringify({ status: { error: `Not found: Collection \`${name}\` doesn't exist!` }, time: 0 }));
        }
        return res.end(ok({ status: 'green', optimizer_status: 'ok', points_count: 0, indexed_vectors_count: 0, segments_count: 1, payload_schema: {}, config: { params: { vectors: c }, hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000 }, optimizer_config: {}, wal_config: {} } }));
      }
      if (p.endsWith('/points') || p.endsWith('/points/delete')) return res.end(ok({ operation_id: 1, status: 'completed' }));
      if (p.endsWith('/points/query')) return res.end(ok({ points: [] }));
      if (p.endsWith('/points/scroll')) return res.end(ok({ points: [], next_page_offset: null }));
      if (p.endsWith('/points/count')) return res.end(ok({ count: 0 }));
      res.statusCode = 404;
      res.end(JSON.stringify({ status: { error: `no route ${req.method} ${p} in this recorder` }, time: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** TypeScript's diagnostics for `bodies`, each checked as the request body of its operation. */
function typeCheck(bodies: Array<{ operation: string; body: unknown }>): string[] {
  // The package exports no subpaths: find its root from the main entry (dist/cjs/index.js).
  let root = path.dirname(require.resolve('@qdrant/js-client-rest'));
  while (path.basename(root) !== 'js-client-rest') root = path.dirname(root);
  const schema = path.join(root, 'dist', 'types', 'openapi', 'generated_schema.d.ts');
  const dir = mkdtempSync(path.join(tmpdir(), 'qdrant-requests-'));
  try {
    const file = path.join(dir, 'requests.ts');
    const lines = [
      `import type { operations } from ${JSON.stringify(schema.replace(/\.d\.ts$/, ''))};`,
      `type Body<K extends keyof operations> = NonNullable<operations[K] extends { requestBody?: infer B } ? B : never> extends { content: { 'application/json': infer J } } ? J : never;`,
      ...bodies.map((b, i) => `export const request${i}: Body<${JSON.stringify(b.operation)}> = ${JSON.stringify(b.body)};`),
    ];
    writeFileSync(file, lines.join('\n'));
    const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, types: [] });
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file)
      .map((d) => {
        const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
        return `${bodies[line - 2]?.operation ?? '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function operationOf(r: Recorded): string | undefined {
  return OPERATIONS.find(([m, p]) => m === r.method && p.test(r.path))?.[2];
}

describe('the Qdrant adapter’s requests against the Qdrant REST schema', () => {
  it('sends only bodies that Qdrant’s schema admits, for every call and filter form the platform uses', async () => {
    const qdrant = await recordingQdrant();
    const store = createQdrantVectorStore({ url: qdrant.url });
    let filters: VectorFilter[] = [];
    try {
      await store.createIndex('docs', { dim: 3, distance: 'cosine' });
      await store.upsert('docs', [
        { id: 'a1b2c3d4-0000-4000-8000-000000000001', vector: [1, 0, 0], payload: { tag: 'new', group: 7, meta: { parity: 'even' } } },
        { id: 42, vector: [0, 1, 0], payload: { tag: 'old', rank: 3, tags: ['x', 'y'] } },
      ]);
      filters = [
        { tag: 'old' },
        { group: 8, 'meta.parity': 'even' },
        { must: [{ key: 'tag', match: { any: ['new', 'old'] } }], must_not: [{ key: 'rank', range: { gte: 1, lt: 5 } }] },
        { should: [{ key: 'tags', match: { value: 'x' } }, { key: 'group', match: { except: [1, 2] } }], min_should: { conditions: [{ key: 'tag', match: { value: 'new' } }], min_count: 1 } },
        { must: [{ key: 'loc', geo_radius: { center: { lat: 52.2, lon: 21 }, radius: 1000 } }, { has_id: [42] }] } as VectorFilter,
      ];
      for (const filter of filters) await store.query('docs', { vector: [1, 0, 0], limit: 5, filter });
      await store.query('docs', { vector: [0, 0, 1], limit: 3 });
      await store.scroll('docs', { limit: 10, filter: { tag: 'new' } });
      await store.delete('docs', ['a1b2c3d4-0000-4000-8000-000000000001', 42]);
      await store.setAlias('docs-live', 'docs');
      await store.getIndex('docs');
    } finally {
      await store.close();
      await qdrant.close();
    }

    const withBodies = qdrant.requests.filter((r) => r.body !== undefined);
    const unknown = withBodies.filter((r) => !operationOf(r)).map((r) => `${r.method} ${r.path}`);
    expect(unknown).toEqual([]);
    const checked = withBodies.map((r) => ({ operation: operationOf(r)!, body: r.body }));
    // Every kind of write and read went out, filters included.
    expect(new Set(checked.map((c) => c.operation))).toEqual(new Set(['create_collection', 'upsert_points', 'query_points', 'scroll_points', 'delete_points', 'count_points', 'update_aliases']));
    expect(checked.filter((c) => c.operation === 'query_points' && (c.body as { filter?: unknown }).filter)).toHaveLength(filters.length);
    expect(typeCheck(checked)).toEqual([]);
  }, 60_000);

  it('has a checker that fails: a misspelled field and a wrong type are reported', () => {
    const errors = typeCheck([
      { operation: 'upsert_points', body: { points: [{ id: 1, vectorz: [1, 0, 0] }] } },
      { operation: 'query_points', body: { query: [1, 0, 0], limit: 'five' } },
    ]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^upsert_points: .*vectorz/);
    expect(errors[1]).toMatch(/^query_points: .*(string|number)/);
  }, 60_000);
});
