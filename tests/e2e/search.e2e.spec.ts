import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SearchService, searchDefinition } from '@flowplane/search';
import { type RunningService, startService } from '@flowplane/platform/service';
import { type Standalone, startStandalone } from '../../apps/standalone/src/standalone';
import { call, json, serviceToken, TEST_SECRET, testEnv, token, until } from '../support/http';

const DIM = 64;

/** A unit vector along axis `i` (plus a little of axis `j`), DIM long. */
function axis(i: number, j = i, w = 0): number[] {
  const v = new Array<number>(DIM).fill(0);
  v[i] = 1;
  v[j] += w;
  return v;
}

interface OwnerDoc {
  id: string;
  text: string;
  payload: Record<string, unknown>;
}

describe('vector search through the gateway', () => {
  let platform: Standalone;
  let api: string;
  let searchUrl: string;
  let admin: string;
  let user: string;
  let svc: string;

  // The "catalog service": owner of the products index, serving its documents in pages of two.
  let owner: Server;
  let ownerUrl: string;
  let products: OwnerDoc[] = [];
  let pageDelayMs = 0;
  const pagesServed: string[] = [];

  beforeAll(async () => {
    owner = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://owner');
      const one = /^\/products\/documents\/([^/]+)$/.exec(url.pathname);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (one) {
        const doc = products.find((p) => p.id === decodeURIComponent(one[1]));
        return doc ? send(200, doc) : send(404, { statusCode: 404, message: 'gone' });
      }
      if (url.pathname === '/products/documents') {
        const start = Number(url.searchParams.get('cursor') ?? 0);
        pagesServed.push(String(start));
        const next = start + 2 < products.length ? String(start + 2) : null;
        setTimeout(() => send(200, { documents: products.slice(start, start + 2), nextCursor: next }), pageDelayMs);
        return;
      }
      send(404, {});
    });
    await new Promise<void>((r) => owner.listen(0, '127.0.0.1', r));
    ownerUrl = `http://127.0.0.1:${(owner.address() as AddressInfo).port}`;

    platform = await startStandalone({
      env: testEnv({ SEARCH_EMBEDDING_DIM: String(DIM), SEARCH_INDEX_PREFIX: 'svc_' }),
    });
    api = `${platform.url}/api/v1`;
    searchUrl = platform.services.find((s) => s.name === 'search')!.url;
    admin = await token('alice', ['admin:access', 'search:index:list', 'search:index:write', 'search:doc:write', 'search:doc:delete']);
    user = await token('bob');
    svc = await serviceToken('catalog', 'search', ['internal:search:owners']);
  }, 30_000);

  afterAll(async () => {
    await platform?.close();
    owner?.closeAllConnections();
    await new Promise((r) => owner?.close(r));
  });

  const adminCall = (method: string, path: string, body?: unknown) => call(`${api}/admin/search${path}`, { method, bearer: admin, ...(body === undefined ? {} : json(body)) });
  const query = (index: string, body: unknown, bearer = user) => call(`${api}/search/indexes/${index}/query`, { method: 'POST', bearer, ...json(body) });

  it('reports its configuration to any authenticated user', async () => {
    expect((await call(`${api}/search/status`)).status).toBe(401);
    const res = await call(`${api}/search/status`, { bearer: user });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ backend: 'embedded', prefix: 'svc_', embeddingProvider: 'local-hash', embeddingModel: 'local-hash-v1', embeddingDimension: DIM, defaultDistance: 'cosine', defaultLimit: 10, maxLimit: 100 });
  });

  it('creates an index idempotently and refuses another dimension with 400', async () => {
    const first = await adminCall('POST', '/indexes', { name: 'docs', dim: DIM });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ name: 'docs', dim: DIM, distance: 'cosine', points: 0, created: true });
    const again = await adminCall('POST', '/indexes', { name: 'docs', dim: DIM, distance: 'cosine' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ name: 'docs', created: false });
    const other = await adminCall('POST', '/indexes', { name: 'docs', dim: 32 });
    expect(other.status).toBe(400);
    expect(other.body.message).toContain('already exists with dim 64');
    expect(other.body).not.toHaveProperty('stack');
    const bad = await adminCall('POST', '/indexes', { name: 'has.dot', dim: 4, extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['extra', 'name']);
    expect((await adminCall('GET', '/indexes/docs')).body).toEqual({ name: 'docs', dim: DIM, distance: 'cosine', points: 0 });
    expect((await adminCall('GET', '/indexes/nope')).status).toBe(404);
    expect((await call(`${api}/search/indexes`, { bearer: user })).body.indexes).toEqual([{ name: 'docs', dim: DIM, distance: 'cosine', points: 0 }]);
  });

  it('upserts text and vector documents with integer, UUID and arbitrary ids, and gives the original ids back', async () => {
    const uuid = '7E57D004-2B97-4E7A-B45F-5387367791CD';
    const res = await adminCall('POST', '/indexes/docs/upsert', {
      documents: [
        { id: 'faq-1', text: 'how do I reset my password', payload: { lang: 'en', kind: 'faq', year: 2021 } },
        { id: 'faq-2', text: 'wie setze ich mein passwort zurück', payload: { lang: 'de', kind: 'faq', year: 2019 } },
        { id: 'faq-3', text: 'shipping costs and delivery times', payload: { lang: 'en', kind: 'faq', year: 2023 } },
        { id: '42', vector: axis(0), payload: { lang: 'en', kind: 'vec' } },
        { id: 7, vector: axis(1), payload: { lang: 'de', kind: 'vec' } },
        { id: uuid, vector: axis(2), payload: { lang: 'en', kind: 'vec' } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ index: 'docs', upserted: 6, embedded: 3 });
    expect((await adminCall('GET', '/indexes/docs')).body.points).toBe(6);

    const byText = await query('docs', { text: 'reset password', limit: 1 });
    expect(byText.status).toBe(200);
    expect(byText.body.hits).toEqual([{ id: 'faq-1', score: expect.any(Number), payload: { lang: 'en', kind: 'faq', year: 2021 } }]);

    const byVector = await query('docs', { vector: axis(0, 2, 0.1), limit: 2 });
    expect(byVector.body.hits.map((h: { id: string }) => h.id)).toEqual(['42', uuid]);
    expect((await query('docs', { vector: axis(1), limit: 1 })).body.hits[0]).toMatchObject({ id: '7', payload: { lang: 'de', kind: 'vec' } });
  });

  it('rejects invalid documents and queries with a 400 naming the problem, writing nothing', async () => {
    const both = await adminCall('POST', '/indexes/docs/upsert', { documents: [{ id: 'x', text: 'a', vector: axis(0) }] });
    expect(both.status).toBe(400);
    expect(both.body.message).toBe('documents[0] needs exactly one of text or vector');
    const neither = await adminCall('POST', '/indexes/docs/upsert', { documents: [{ id: 'ok', text: 'fine' }, { id: 'x' }] });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toContain('documents[1]');
    const wrongDim = await adminCall('POST', '/indexes/docs/upsert', { documents: [{ id: 'x', vector: [1, 2, 3] }] });
    expect(wrongDim.status).toBe(400);
    expect(wrongDim.body.message).toContain('3 dimensions; index "docs" has 64');
    const reserved = await adminCall('POST', '/indexes/docs/upsert', { documents: [{ id: 'x', text: 't', payload: { _id: 'y' } }] });
    expect(reserved.status).toBe(400);
    expect((await adminCall('GET', '/indexes/docs')).body.points).toBe(6);

    expect((await query('docs', {})).body.message).toBe('a query needs exactly one of text or vector');
    expect((await query('docs', { vector: [1, 0] })).status).toBe(400);
    const unsupported = await query('docs', { text: 'x', filter: { must: [{ key: 'title', match: { text: 'reset' } }] } });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.message).toMatch(/filter: .*must\[0\]\.match.*text/);
    const geo = await query('docs', { text: 'x', filter: { must: [{ key: 'loc', geo_bounding_box: { top_left: { lat: 1, lon: 0 }, bottom_right: { lat: 0, lon: 1 } } }] } });
    expect(geo.status).toBe(400);
    expect(geo.body.message).toContain('geo_bounding_box');
    const badCentre = await query('docs', { text: 'x', filter: { must: [{ key: 'loc', geo_radius: { center: { lat: 91, lon: 0 }, radius: 1 } }] } });
    expect(badCentre.status).toBe(400);
    expect(badCentre.body.message).toContain('must[0].geo_radius.center');
    expect((await query('missing', { text: 'x' })).status).toBe(404);
  });

  it('never shows the index prefix or a backend collection name in an error', async () => {
    const answers = [
      await query('docs', { vector: [1, 0, 0] }),
      await query('missing', { vector: axis(0) }),
      await query('missing', { text: 'x' }),
      await adminCall('POST', '/indexes/missing/delete', { ids: ['a'] }),
      await adminCall('POST', '/indexes/missing/upsert', { documents: [{ id: 'a', vector: axis(0) }] }),
      await adminCall('GET', '/indexes/missing'),
      await adminCall('DELETE', '/indexes/missing'),
      await adminCall('POST', '/indexes', { name: 'docs', dim: 3 }),
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 404, 404, 404, 404, 404, 404, 400]);
    for (const a of answers) {
      expect(a.text).not.toContain('svc_');
      expect(a.text).not.toMatch(/\.g[0-9a-z]+\b/);
    }
    expect(answers[0].body.message).toBe('index "docs" expects vectors of dimension 64, got 3');
    for (const a of answers.slice(1, 7)) expect(a.body).toMatchObject({ code: 'SEARCH_INDEX_NOT_FOUND', message: 'index "missing" does not exist' });
  });

  it('filters by payload shortcut and filter clauses, and says when the matches ran out', async () => {
    const de = await query('docs', { text: 'password', payload: { lang: 'de' } });
    expect(de.body.hits.map((h: { id: string }) => h.id).sort()).toEqual(['7', 'faq-2']);
    expect(de.body).toMatchObject({ limit: 10, exhausted: true });

    const ranged = await query('docs', { text: 'faq', limit: 5, payload: { kind: 'faq' }, filter: { must: [{ key: 'year', range: { gte: 2020 } }] } });
    expect(ranged.body.hits.map((h: { id: string }) => h.id).sort()).toEqual(['faq-1', 'faq-3']);
    expect(ranged.body.exhausted).toBe(true);

    const full = await query('docs', { text: 'faq', limit: 3 });
    expect(full.body.hits).toHaveLength(3);
    expect(full.body.exhausted).toBe(false);
    expect((await query('docs', { text: 'faq', limit: 1000 })).body.limit).toBe(100);
  });

  it('filters by has_id with document ids and by geo_radius over {lon, lat} payloads, as Qdrant would', async () => {
    expect((await adminCall('POST', '/indexes', { name: 'places', dim: DIM })).status).toBe(201);
    try {
      const city = (id: string | number, lon: number, lat: number, i: number) => ({ id, vector: axis(i), payload: { where: { lon, lat } } });
      const upserted = await adminCall('POST', '/indexes/places/upsert', {
        documents: [
          city('berlin', 13.405, 52.52, 0),
          city('potsdam', 13.0645, 52.3906, 1), // 27 km from Berlin
          city(7, 9.9937, 53.5511, 2), // Hamburg, 255 km
          { id: 'nowhere', vector: axis(3), payload: { where: 'unknown' } },
        ],
      });
      expect(upserted.status).toBe(200);
      const ids = async (filter: unknown) => {
        const res = await query('places', { vector: axis(0), limit: 10, filter });
        expect(res.status).toBe(200);
        return (res.body.hits as Array<{ id: string }>).map((h) => h.id).sort();
      };
      expect(await ids({ must: [{ has_id: ['potsdam', '7', 'never-there'] }] })).toEqual(['7', 'potsdam']);
      expect(await ids({ must_not: [{ has_id: ['berlin', 7] }] })).toEqual(['nowhere', 'potsdam']);
      const near = (radius: number) => ({ must: [{ key: 'where', geo_radius: { center: { lon: 13.405, lat: 52.52 }, radius } }] });
      expect(await ids(near(30_000))).toEqual(['berlin', 'potsdam']);
      expect(await ids(near(20_000))).toEqual(['berlin']);
      expect(await ids(near(300_000))).toEqual(['7', 'berlin', 'potsdam']);
      expect(await ids({ ...near(300_000), must_not: [{ has_id: ['berlin'] }] })).toEqual(['7', 'potsdam']);
      expect((await query('places', { vector: axis(0), filter: { must: [{ has_id: [{ id: 1 }] }] } })).status).toBe(400);
    } finally {
      expect((await adminCall('DELETE', '/indexes/places')).status).toBe(204);
    }
  });

  it('deletes documents by their original ids', async () => {
    const res = await adminCall('POST', '/indexes/docs/delete', { ids: ['faq-3', '42', 'never-there'] });
    expect(res.status).toBe(200);
    expect((await adminCall('GET', '/indexes/docs')).body.points).toBe(4);
    const hits = (await query('docs', { text: 'shipping costs', limit: 10 })).body.hits.map((h: { id: string }) => h.id);
    expect(hits).not.toContain('faq-3');
    expect(hits).not.toContain('42');
  });

  it('PruneStale deletes every point not in the list and counts them', async () => {
    const search = platform.services.find((s) => s.name === 'search')!.app.get(SearchService);
    await adminCall('POST', '/indexes', { name: 'prune', dim: DIM });
    await adminCall('POST', '/indexes/prune/upsert', { documents: ['a', 'b', 'c', '10', 'd'].map((id, i) => ({ id, vector: axis(i) })) });
    expect(await search.pruneStale('prune', ['a', '10'])).toBe(3);
    expect((await adminCall('GET', '/indexes/prune')).body.points).toBe(2);
    expect((await query('prune', { vector: axis(3), limit: 10 })).body.hits.map((h: { id: string }) => h.id).sort()).toEqual(['10', 'a']);
    expect(await search.pruneStale('prune', ['a', '10'])).toBe(0);
  });

  it('answers 501 for a reindex without an owner', async () => {
    const res = await adminCall('POST', '/indexes/docs/reindex');
    expect(res.status).toBe(501);
    expect(res.body.message).toContain('no registered owner');
    expect((await adminCall('GET', '/entities')).body.reindexable).toEqual([]);
  });

  it('rebuilds an owned index behind an alias switch; queries during the rebuild answer from the old index', async () => {
    const register = await call(`${searchUrl}/internal/search/owners/catalog`, {
      method: 'PUT',
      bearer: svc,
      ...json({ sourceUrl: `${ownerUrl}/`, events: ['product.created', 'product.updated', 'product.deleted'], indexes: [{ index: 'products' }], consumers: [{ topic: 'product.updated', groupId: 'search-catalog-products', index: 'products' }] }),
    });
    expect(register.status).toBe(200);
    expect(register.body).toMatchObject({ module: 'catalog', reindexers: ['products'], consumers: [{ topic: 'product.updated' }], skipped: [] });
    expect((await adminCall('GET', '/entities')).body.reindexable).toEqual(['products']);
    expect((await call(`${searchUrl}/internal/search/owners/catalog`, { method: 'PUT', bearer: admin, ...json({ sourceUrl: ownerUrl, indexes: [] }) })).status).toBe(403);

    products = [1, 2, 3, 4, 5].map((n) => ({ id: `p-${n}`, text: `red wooden chair number ${n}`, payload: { gen: 1 } }));
    const first = await adminCall('POST', '/indexes/products/reindex');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ index: 'products', documents: 5, status: 'ok', pruned: 0 });
    expect((await adminCall('GET', '/indexes/products')).body).toMatchObject({ dim: DIM, points: 5 });

    products = [1, 2, 3, 4, 5, 6].map((n) => ({ id: `p-${n}`, text: `red wooden chair number ${n}`, payload: { gen: 2 } }));
    pageDelayMs = 150;
    const rebuild = adminCall('POST', '/indexes/products/reindex');
    const during: Array<{ status: number; gens: number[] }> = [];
    let done = false;
    void rebuild.then(() => (done = true));
    while (!done) {
      const r = await query('products', { text: 'wooden chair', limit: 10 });
      during.push({ status: r.status, gens: (r.body.hits ?? []).map((h: { payload: { gen: number } }) => h.payload.gen) });
      await new Promise((r2) => setTimeout(r2, 40));
    }
    pageDelayMs = 0;
    const result = await rebuild;
    expect(result.body).toEqual({ index: 'products', documents: 6, status: 'ok', pruned: 0 });
    // Every query while building saw a complete index, never a half-built one: the old one, or the
    // new one once the alias switched (the switch happens a moment before the reindex answer arrives).
    const old = (d: { gens: number[] }) => d.gens.length === 5 && d.gens.every((g) => g === 1);
    const rebuilt = (d: { gens: number[] }) => d.gens.length === 6 && d.gens.every((g) => g === 2);
    for (const d of during) {
      expect(d.status).toBe(200);
      expect({ gens: d.gens, complete: old(d) || rebuilt(d) }).toEqual({ gens: d.gens, complete: true });
    }
    // The rebuild took many queries' time, and they were answered from the old index meanwhile.
    expect(during.filter(old).length).toBeGreaterThan(3);
    // Once a query saw the new index, none went back to the old one.
    const firstNew = during.findIndex(rebuilt);
    if (firstNew >= 0) expect(during.slice(firstNew).every(rebuilt)).toBe(true);
    const after = await query('products', { text: 'wooden chair', limit: 10 });
    expect(after.body.hits).toHaveLength(6);
    expect(after.body.hits.every((h: { payload: { gen: number } }) => h.payload.gen === 2)).toBe(true);
    // Only one generation is left behind the alias.
    expect((await call(`${api}/search/indexes`, { bearer: user })).body.indexes.filter((i: { name: string }) => i.name === 'products')).toHaveLength(1);
  });

  it('applies lifecycle events of the owner: rebuilds the changed entity, deletes it when gone', async () => {
    products = products.map((p) => (p.id === 'p-2' ? { ...p, text: 'blue metal lamp', payload: { gen: 3 } } : p));
    await platform.bus.publish('product.updated', { id: 'p-2' }, { key: 'p-2' });
    const updated = await until(
      () => query('products', { text: 'blue metal lamp', limit: 1 }),
      (r) => r.body.hits?.[0]?.payload?.gen === 3,
    );
    expect(updated.body.hits[0]).toMatchObject({ id: 'p-2', payload: { gen: 3 } });

    products = products.filter((p) => p.id !== 'p-2');
    await platform.bus.publish('product.updated', { id: 'p-2' }, { key: 'p-2' });
    const gone = await until(() => adminCall('GET', '/indexes/products'), (r) => r.body.points === 5);
    expect(gone.body.points).toBe(5);
  });

  it('reports the stale points a reindex removed: those the owner no longer lists', async () => {
    const stray = await adminCall('POST', '/indexes/products/upsert', { documents: ['stray-1', 'stray-2'].map((id) => ({ id, text: `stray wooden chair ${id}` })) });
    expect(stray.status).toBe(200);
    expect((await adminCall('GET', '/indexes/products')).body.points).toBe(7);
    const res = await adminCall('POST', '/indexes/products/reindex');
    expect(res.body).toEqual({ index: 'products', documents: 5, status: 'ok', pruned: 2 });
    expect((await adminCall('GET', '/indexes/products')).body.points).toBe(5);
    const ids = (await query('products', { text: 'stray wooden chair', limit: 10 })).body.hits.map((h: { id: string }) => h.id);
    expect(ids.sort()).toEqual(['p-1', 'p-3', 'p-4', 'p-5', 'p-6']);
    expect((await adminCall('POST', '/indexes/products/reindex')).body).toEqual({ index: 'products', documents: 5, status: 'ok', pruned: 0 });
  });

  it('registers no consumer for a module without an events list', async () => {
    const res = await call(`${searchUrl}/internal/search/owners/silent`, {
      method: 'PUT',
      bearer: svc,
      ...json({ sourceUrl: ownerUrl, indexes: [{ index: 'silent', reindex: false }], consumers: [{ topic: 'product.updated', groupId: 'search-silent', index: 'products' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.body.consumers).toEqual([]);
    expect(res.body.skipped).toEqual([{ topic: 'product.updated', reason: expect.stringContaining('no events list') }]);
    expect((await call(`${searchUrl}/internal/search/owners/silent`, { method: 'DELETE', bearer: svc })).status).toBe(204);
  });

  it('hides indexes under another prefix once search.index_prefix changes, without a restart', async () => {
    const settingsAdmin = await token('root', ['admin:access']);
    const put = (value: string) => call(`${api}/admin/settings/search`, { method: 'PUT', bearer: settingsAdmin, ...json({ values: { index_prefix: value } }) });
    const names = async () => ((await call(`${api}/search/indexes`, { bearer: user })).body.indexes as Array<{ name: string }>).map((i) => i.name);
    expect(await names()).toContain('docs');
    expect((await put('alt_')).status).toBe(200);
    expect(await until(names, (n) => !n.includes('docs'))).toEqual([]);
    expect((await call(`${api}/search/status`, { bearer: user })).body.prefix).toBe('alt_');
    expect((await query('docs', { text: 'password' })).status).toBe(404);
    expect((await adminCall('POST', '/indexes', { name: 'docs', dim: 8 })).status).toBe(201);
    expect(await names()).toEqual(['docs']);
    expect((await put('')).status).toBe(200);
    expect(await until(names, (n) => n.includes('products'))).toEqual(['docs', 'products', 'prune']);
    expect((await adminCall('GET', '/indexes/docs')).body.dim).toBe(DIM);
  });

  it('enforces the permissions of each route', async () => {
    const routes: Array<[string, string, string, unknown?]> = [
      ['GET', '/indexes', 'search:index:list'],
      ['GET', '/indexes/docs', 'search:index:list'],
      ['GET', '/entities', 'search:index:list'],
      ['POST', '/indexes', 'search:index:write', { name: 'perm', dim: 4 }],
      ['POST', '/indexes/products/reindex', 'search:index:write'],
      ['DELETE', '/indexes/perm', 'search:index:write'],
      ['POST', '/indexes/docs/upsert', 'search:doc:write', { documents: [{ id: 'perm-1', text: 'perm' }] }],
      ['POST', '/indexes/docs/delete', 'search:doc:delete', { ids: ['perm-1'] }],
    ];
    const all = ['search:index:list', 'search:index:write', 'search:doc:write', 'search:doc:delete'];
    for (const [method, path, perm, body] of routes) {
      const send = (bearer?: string) => call(`${api}/admin/search${path}`, { method, bearer, ...(body === undefined ? {} : json(body)) });
      const others = all.filter((p) => p !== perm);
      expect([path, (await send()).status]).toEqual([path, 401]);
      expect([path, (await send(await token('u', ['admin:access', ...others]))).status]).toEqual([path, 403]);
      expect([path, (await send(await token('u', [perm]))).status]).toEqual([path, 403]);
      expect([path, (await send(await token('u', ['admin:access', perm], { active: false }))).status]).toEqual([path, 403]);
      const allowed = await send(await token('u', ['admin:access', perm]));
      expect([path, allowed.status < 300]).toEqual([path, true]);
    }
    for (const path of ['/search/status', '/search/indexes']) {
      expect((await call(`${api}${path}`)).status).toBe(401);
      expect((await call(`${api}${path}`, { bearer: await token('idle', [], { active: false }) })).status).toBe(403);
    }
    expect((await query('docs', { text: 'x' }, await token('idle', [], { active: false }))).status).toBe(403);
  });

  it('runs a flow that upserts then queries through svc/search-upsert and svc/search-query', async () => {
    const nodes = await until(
      () => call(`${api}/flows/nodes`, { bearer: admin }),
      (r) => ['svc/search-upsert', 'svc/search-query'].every((id) => (r.body as Array<{ id: string }>).some((m) => m.id === id)),
      10_000,
    );
    expect((nodes.body as Array<{ id: string; remote: boolean; source: string }>).find((m) => m.id === 'svc/search-query')).toMatchObject({ remote: true, source: 'search' });
    await adminCall('POST', '/indexes', { name: 'flowdocs', dim: DIM });

    const flow = {
      name: 'Index and ask',
      nodes: [
        { id: 'start', name: 'Start', kind: 'start' },
        { id: 'index', name: 'Index', kind: 'action', action_ref: 'svc/search-upsert', config: { index: 'flowdocs' } },
        { id: 'ask', name: 'Ask', kind: 'action', action_ref: 'svc/search-query', config: { index: 'flowdocs', limit: 2, queryKey: 'question' } },
        { id: 'done', name: 'Done', kind: 'end' },
        { id: 'failed', name: 'Failed', kind: 'end' },
      ],
      edges: [
        { id: 'e1', from: 'start', to: 'index' },
        { id: 'e2', from: 'index', to: 'ask', port: 'out' },
        { id: 'e3', from: 'ask', to: 'done', port: 'out' },
        { id: 'e4', from: 'index', to: 'failed', port: 'Error' },
        { id: 'e5', from: 'ask', to: 'failed', port: 'Error' },
      ],
      meta: { positions: { start: { x: 0, y: 0 }, index: { x: 200, y: 0 }, ask: { x: 400, y: 0 }, done: { x: 600, y: 0 }, failed: { x: 600, y: 100 } } },
    };
    expect((await call(`${api}/flows`, { method: 'POST', bearer: admin, ...json({ id: 'index-and-ask', name: 'Index and ask' }) })).status).toBe(201);
    const saved = await call(`${api}/flows/index-and-ask/versions`, { method: 'POST', bearer: admin, ...json(flow) });
    expect(saved.status).toBe(201);
    expect((await call(`${api}/flows/index-and-ask/publish`, { method: 'POST', bearer: admin, ...json({ versionID: saved.body.versionId }) })).status).toBe(200);

    const run = await call(`${api}/flows/index-and-ask/runs`, {
      method: 'POST',
      bearer: admin,
      ...json({
        input: {
          documents: [
            { id: 'kb-cancel', text: 'how to cancel a subscription', payload: { topic: 'billing' } },
            { id: 'kb-invoice', text: 'download your invoice as pdf', payload: { topic: 'billing' } },
            { id: 'kb-hike', text: 'best hiking trails in the alps', payload: { topic: 'travel' }, vector: [] },
          ],
          question: 'cancel my subscription',
        },
      }),
    });
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('completed');
    expect(run.body.output).toMatchObject({ index: 'flowdocs', upserted: 3, exhausted: false, question: 'cancel my subscription' });
    expect(run.body.output.hits).toHaveLength(2);
    expect(run.body.output.hits[0]).toMatchObject({ id: 'kb-cancel', payload: { topic: 'billing' } });

    const failing = await call(`${api}/flows/index-and-ask/runs`, { method: 'POST', bearer: admin, ...json({ input: { documents: [{ id: 'x' }] } }) });
    expect(failing.body.output.error).toContain('documents[0] needs exactly one of text or vector');
  });
});

describe('search with Qdrant unreachable', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService(searchDefinition, {
      env: { PORT: '0', STORE: 'memory', AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent', SEARCH_BACKEND: 'vectordb', VECTORSTORE_URL: 'http://127.0.0.1:1', SEARCH_REGISTER_NODES: 'false', PROFILES_URL: 'http://127.0.0.1:1' },
    });
  });
  afterAll(() => svc?.close());

  it('answers 503 without internals', async () => {
    const bearer = await token('alice', ['admin:access', 'search:index:list', 'search:doc:write']);
    for (const [method, path, body] of [
      ['GET', '/api/v1/search/indexes', undefined],
      ['POST', '/api/v1/search/indexes/docs/query', { vector: [1, 2] }],
      ['POST', '/api/v1/admin/search/indexes/docs/upsert', { documents: [{ id: 'a', text: 'x' }] }],
    ] as const) {
      const res = await call(`${svc.url}${path}`, { method, bearer, ...(body ? json(body) : {}) });
      expect([path, res.status]).toEqual([path, 503]);
      expect(res.body).toMatchObject({ statusCode: 503, message: 'the vector store is unavailable, retry later', errorId: expect.any(String) });
      expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|at .*\.ts/);
    }
    expect((await call(`${svc.url}/readyz`)).status).toBe(503);
  });
});

describe('search with an embedding model', () => {
  let platform: Standalone;
  let model: Server;
  const calls: Array<{ input: string[]; authorization?: string }> = [];

  beforeAll(async () => {
    // An OpenAI-compatible /v1/embeddings endpoint (what vLLM, Ollama or OpenAI answer).
    model = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString('utf8')));
      req.on('end', () => {
        const body = JSON.parse(text) as { input: string[]; model: string };
        calls.push({ input: body.input, authorization: req.headers.authorization });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            model: body.model,
            data: body.input.map((t, index) => ({ object: 'embedding', index, embedding: axis(t.length % DIM) })),
            usage: { prompt_tokens: body.input.length * 5, total_tokens: body.input.length * 5 },
          }),
        );
      });
    });
    await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
    const baseURL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    platform = await startStandalone({
      env: testEnv({
        SEARCH_EMBEDDING_DIM: String(DIM),
        SEARCH_EMBEDDING_PROVIDER: 'openai-compatible',
        SEARCH_EMBEDDING_MODEL: 'test-embed',
        SEARCH_EMBEDDING_BASE_URL: baseURL,
        SEARCH_EMBEDDING_API_KEY: 'sk-test-embed',
      }),
    });
  }, 30_000);

  afterAll(async () => {
    await platform?.close();
    model?.closeAllConnections();
    await new Promise((r) => model?.close(r));
  });

  it('embeds documents in one call per batch and records every model call in the usage ledger', async () => {
    const api = `${platform.url}/api/v1`;
    const admin = await token('alice', ['admin:access', 'search:index:write', 'search:doc:write']);
    expect((await call(`${api}/admin/search/indexes`, { method: 'POST', bearer: admin, ...json({ name: 'notes', dim: DIM }) })).status).toBe(201);
    const upserted = await call(`${api}/admin/search/indexes/notes/upsert`, {
      method: 'POST',
      bearer: admin,
      ...json({ documents: [{ id: 'a', text: 'alpha' }, { id: 'b', text: 'beta two' }, { id: 'c', vector: axis(3) }] }),
    });
    expect(upserted.body).toEqual({ index: 'notes', upserted: 3, embedded: 2 });
    const found = await call(`${api}/search/indexes/notes/query`, { method: 'POST', bearer: admin, ...json({ text: 'omega', limit: 1 }) });
    expect(found.status).toBe(200);
    // Two texts in one call, then the query: the key went along, and the query vector found "alpha" (length 5).
    expect(calls.map((c) => c.input)).toEqual([['alpha', 'beta two'], ['omega']]);
    expect(calls.every((c) => c.authorization === 'Bearer sk-test-embed')).toBe(true);
    expect(found.body.hits[0].id).toBe('a');

    const rows = await until(
      () => call(`${api}/admin/llm/usage?model=test-embed`, { bearer: admin }),
      (r) => r.body?.items?.length === 2,
    );
    expect(rows.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'embedding', service: 'search', providerId: 'openai-compatible', model: 'test-embed', promptTokens: 10, completionTokens: 0, status: 'ok' }),
        expect.objectContaining({ kind: 'embedding', service: 'search', model: 'test-embed', promptTokens: 5 }),
      ]),
    );
    expect(JSON.stringify(rows.body)).not.toContain('sk-test-embed');
  });
});
