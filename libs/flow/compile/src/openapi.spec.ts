import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { openApiModel } from '../test/format.arbitrary';
import { fixturePath, golden, loadFixture, openApiError, toJson, toYaml } from '../test/format-helpers';
import type { ApiModel, FieldMap, ModelAction } from './model';
import { operationName, pathParams, readOpenApi, writeOpenApi } from './openapi';
import { parseSource } from './source';
import { readFormA } from './form-a';

const shop = loadFixture('ir/shop.model.json') as ApiModel;

/** What the OpenAPI round trip gives back for an action: path parameters are required input fields, empty maps absent. */
function expectedAction(a: ModelAction): ModelAction {
  const input: FieldMap = { ...(a.input ?? {}) };
  for (const p of pathParams(a.path as string)) input[p] = { ...(input[p] ?? { type: 'string' }), required: true };
  const { input: _i, output, ...rest } = a;
  return { ...rest, ...(Object.keys(input).length && { input }), ...(output && Object.keys(output).length && { output }) };
}

const byName = (actions: ModelAction[]): ModelAction[] => [...actions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

describe('writeOpenApi', () => {
  it('writes the shop model as valid OpenAPI 3.0.3 (golden)', async () => {
    const { document, diagnostics } = writeOpenApi(shop);
    golden('openapi/shop.openapi.yaml', toYaml(document));
    expect(await openApiError(document)).toBeUndefined();
    // The two actions without method and path have no operation.
    expect(diagnostics).toEqual([
      { code: 'FMT', severity: 'warning', path: '/actions/4', message: 'action "chargeOrder" has no method and path; it has no OpenAPI operation' },
      { code: 'FMT', severity: 'warning', path: '/actions/5', message: 'action "notifyCustomer" has no method and path; it has no OpenAPI operation' },
    ]);
  });

  it('maps methods: GET/DELETE input to query parameters, POST input to a JSON body, {x} to required path parameters', () => {
    const paths = writeOpenApi(shop).document.paths as Record<string, Record<string, Record<string, unknown>>>;
    expect(paths['/products'].get.parameters).toEqual([
      { name: 'tag', in: 'query', schema: { type: 'string' } },
      { name: 'limit', in: 'query', schema: { type: 'integer' } },
    ]);
    expect(paths['/products'].get.summary).toBe('Lists the products.');
    expect(paths['/orders/{id}'].delete.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      { name: 'reason', in: 'query', schema: { type: 'string' } },
    ]);
    expect(paths['/orders'].post.requestBody).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, quantity: { type: 'integer' } }, required: ['sku', 'quantity'] } },
              coupon: { type: 'string' },
            },
            required: ['lines'],
          },
        },
      },
    });
    expect(paths['/products/{sku}'].get.responses).toEqual({
      '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object', properties: { product: { $ref: '#/components/schemas/product' } }, required: ['product'] } } } },
    });
  });

  it('writes a path parameter missing from the input as a required string, and a ref to an unknown entity as an empty schema', async () => {
    const model: ApiModel = {
      ...shop,
      entities: [],
      actions: [{ name: 'getLine', method: 'GET', path: 'orders/{order}/lines/{line}', input: { line: { type: 'integer' } }, output: { product: { type: 'ref', ref: 'product' } } }],
    };
    const { document, diagnostics } = writeOpenApi(model);
    const op = (document.paths as Record<string, Record<string, Record<string, unknown>>>)['/orders/{order}/lines/{line}'].get;
    expect(op.parameters).toEqual([
      { name: 'order', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'line', in: 'path', required: true, schema: { type: 'integer' } },
    ]);
    expect(diagnostics.map((d) => [d.path, d.message])).toEqual([
      ['/actions/0/path', 'path "orders/{order}/lines/{line}" written as "/orders/{order}/lines/{line}"'],
      ['/actions/0/output/product', 'ref to unknown entity "product" written as an empty schema'],
    ]);
    expect(await openApiError(document)).toBeUndefined();
  });

  it('leaves out a second action on the same method and path', () => {
    const { document, diagnostics } = writeOpenApi({ ...shop, actions: [shop.actions[0], { ...shop.actions[0], name: 'again' }] });
    expect(Object.keys((document.paths as Record<string, object>)['/products'])).toEqual(['get']);
    expect(diagnostics[0]).toMatchObject({ path: '/actions/1', severity: 'warning' });
  });
});

describe('readOpenApi', () => {
  it('reads a third-party style document with $refs, path parameters, request bodies and allOf (golden)', async () => {
    const source = loadFixture('openapi/petstore.openapi.yaml');
    expect(await openApiError(source)).toBeUndefined();
    const result = readOpenApi(source);
    golden('openapi/petstore.model.json', toJson(result));
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('resolves $refs: component schemas stay refs, parameters and request bodies are inlined', () => {
    const { model } = readOpenApi(loadFixture('openapi/petstore.openapi.yaml'));
    const byName = new Map(model.actions.map((a) => [a.name, a]));
    expect(byName.get('listPets')?.input).toEqual({
      limit: { type: 'integer', format: 'int32', description: 'How many items to return at one time (max 100)' },
      status: { type: 'array', items: { type: 'enum', enum: ['available', 'pending', 'sold'] }, description: 'Status values to filter by' },
    });
    // A non-object response schema becomes the single output field `result`.
    expect(byName.get('listPets')?.output).toEqual({ result: { type: 'array', items: { type: 'ref', ref: 'Pet' } } });
    // The request body $ref to a component schema is inlined; a nested $ref to a non-object schema is inlined too.
    expect(byName.get('createPet')?.input).toEqual({
      name: { type: 'string', required: true },
      tag: { type: 'string' },
      status: { type: 'enum', enum: ['available', 'pending', 'sold'], description: 'Pet status in the store' },
    });
    expect(byName.get('showPetById')).toMatchObject({ method: 'GET', path: '/pets/{petId}', module: 'pets', input: { petId: { type: 'integer', format: 'int64', required: true, description: 'The id of the pet' } } });
    expect(model.entities.map((e) => e.name)).toEqual(['NewPet', 'Pet', 'Owner', 'Order', 'Error']);
    expect(model.entities.find((e) => e.name === 'Pet')?.fields).toEqual({
      name: { type: 'string', required: true },
      tag: { type: 'string' },
      status: { type: 'enum', enum: ['available', 'pending', 'sold'], description: 'Pet status in the store' },
      id: { type: 'integer', format: 'int64', required: true },
      owner: { type: 'ref', ref: 'Owner' },
    });
    expect(model.modules).toEqual([
      { name: 'pets', description: 'Everything about your pets' },
      { name: 'store', description: 'Access to petstore orders' },
    ]);
  });

  it('warns with the JSON pointer of each approximated or dropped item', () => {
    const { model, diagnostics } = readOpenApi(loadFixture('openapi/petstore.openapi.yaml'));
    expect(diagnostics.map((d) => `${d.severity} ${d.path}`)).toEqual(
      expect.arrayContaining([
        'warning /paths/~1pets/get/parameters/2',
        'warning /paths/~1pets~1{petId}/put',
        'warning /paths/~1pets~1{petId}~1photo/post/requestBody/content',
        'warning /paths/~1pets/get/responses/200/content/application~1json/schema',
        'warning /components/schemas/Pet/allOf',
      ]),
    );
    expect(diagnostics.every((d) => d.code === 'FMT')).toBe(true);
    expect(model.actions.map((a) => a.name)).toEqual(['listPets', 'createPet', 'showPetById', 'putPetsByPetId', 'deletePet', 'uploadPhoto', 'placeOrder']);
  });

  it('fills positions from a source map', () => {
    const text = 'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n        "200": {description: ok}\n';
    const parsed = parseSource(text);
    const { diagnostics } = readOpenApi(parsed.value, { map: parsed.map });
    expect(diagnostics).toEqual([{ code: 'FMT', severity: 'warning', path: '/paths/~1a/get', message: 'operation has no operationId; named "getA"', position: { line: 5, column: 5 } }]);
  });

  it('tolerates 3.1 (type arrays, anyOf with null) and refuses Swagger 2.0', () => {
    const doc31 = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { '/x': { post: { operationId: 'x', requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { a: { type: ['string', 'null'] }, b: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } } } } }, responses: { '200': { description: 'ok' } } } } },
    };
    const { model, diagnostics } = readOpenApi(doc31);
    expect(diagnostics).toEqual([]);
    expect(model.actions[0].input).toEqual({ a: { type: 'string', nullable: true }, b: { type: 'integer', nullable: true } });
    expect(readOpenApi({ swagger: '2.0' }).diagnostics).toEqual([{ code: 'FMT', severity: 'error', path: '/openapi', message: 'Swagger 2.0 is not supported; convert it to OpenAPI 3 first' }]);
  });

  it('names operations without operationId deterministically', () => {
    expect(operationName('GET', '/orders/{order_id}/items')).toBe('getOrdersByOrderIdItems');
    expect(operationName('delete', '/')).toBe('delete');
  });
});

describe('IR → OpenAPI → IR', () => {
  it('keeps the shop model\'s HTTP actions and entities', () => {
    const back = readOpenApi(writeOpenApi(shop).document);
    expect(back.diagnostics).toEqual([]);
    expect(byName(back.model.actions)).toEqual(byName(shop.actions.filter((a) => a.method && a.path).map(expectedAction)));
    const canonical = JSON.parse(JSON.stringify(shop.entities).replace(/"float"/g, '"number"'));
    expect(back.model.entities).toEqual(canonical);
    expect(back.model.modules).toEqual(shop.modules);
    expect(back.model.servers).toEqual(shop.servers);
    expect(back.model.extensions).toEqual(shop.extensions);
  });

  it('keeps actions with method and path, and entities, of any model the format can carry (property)', () => {
    fc.assert(
      fc.property(openApiModel(), (model) => {
        const back = readOpenApi(JSON.parse(JSON.stringify(writeOpenApi(model).document)));
        expect(back.diagnostics).toEqual([]);
        // Operations are grouped by path: the order of actions across paths is not kept.
        expect(byName(back.model.actions)).toEqual(byName(model.actions.filter((a) => a.method && a.path).map(expectedAction)));
        expect(back.model.entities).toEqual(model.entities);
      }),
      { numRuns: 300 },
    );
  });

  it('writes documents swagger-parser accepts for any such model (property)', async () => {
    await fc.assert(
      fc.asyncProperty(openApiModel(), async (model) => {
        expect(await openApiError(writeOpenApi(model).document)).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it('writes the order-service form A sample as valid OpenAPI', async () => {
    const file = fixturePath('order-service.flow.yaml');
    if (!existsSync(file)) return;
    const { model } = readFormA(loadFixture('order-service.flow.yaml'));
    const { document } = writeOpenApi(model as ApiModel);
    expect(await openApiError(document)).toBeUndefined();
    const back = readOpenApi(document).model;
    expect(byName(back.actions).map((a) => a.name)).toEqual(byName((model as ApiModel).actions.filter((a) => a.method && a.path)).map((a) => a.name));
  });
});
