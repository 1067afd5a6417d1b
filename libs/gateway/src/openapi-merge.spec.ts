import type { OpenAPIObject } from '@nestjs/swagger';
import { mergeOpenApi } from './openapi-merge';

const base: OpenAPIObject = { openapi: '3.0.0', info: { title: 'Flowplane API', version: '1' }, paths: {}, security: [{ bearer: [] }] };

/** One service document with a GET /api/v1/things whose 200 answers `Thing`. */
function service(schemas: Record<string, unknown>): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 'things', version: '1' },
    paths: { '/api/v1/things': { get: { operationId: 'things_list', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } } } } },
    components: { schemas: schemas as never },
  };
}

describe('mergeOpenApi', () => {
  it('leaves no nullable without a type: a reference moves into allOf with its target type, a union carries it on a typed branch, an untyped one drops it', () => {
    const doc = mergeOpenApi(base, [
      {
        service: 'things',
        doc: service({
          Owner: { type: 'object', properties: { name: { type: 'string' } } },
          Thing: {
            type: 'object',
            properties: {
              owner: { $ref: '#/components/schemas/Owner', nullable: true, description: 'Who owns it.' },
              parent: { allOf: [{ $ref: '#/components/schemas/Owner' }], nullable: true },
              key: { oneOf: [{ type: 'string' }, { type: 'boolean' }], nullable: true },
              value: { nullable: true, description: 'Any JSON value.' },
              count: { type: 'number', nullable: true },
            },
          },
        }),
      },
    ]);
    const props = (doc.components!.schemas!.Thing as { properties: Record<string, unknown> }).properties;
    expect(props.owner).toEqual({ allOf: [{ $ref: '#/components/schemas/Owner' }], type: 'object', nullable: true, description: 'Who owns it.' });
    expect(props.parent).toEqual({ allOf: [{ $ref: '#/components/schemas/Owner' }], type: 'object', nullable: true });
    expect(props.key).toEqual({ oneOf: [{ type: 'string', nullable: true }, { type: 'boolean' }] });
    expect(props.value).toEqual({ description: 'Any JSON value.' });
    expect(props.count).toEqual({ type: 'number', nullable: true });
  });

  it('has servers and no document-level security, and drops schemas no operation reaches', () => {
    const doc = mergeOpenApi(base, [{ service: 'things', doc: service({ Thing: { type: 'object' }, InternalOnly: { type: 'object' } }) }]);
    expect(doc.security).toBeUndefined();
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(Object.keys(doc.components!.schemas!)).toEqual(['Thing']);
  });
});
