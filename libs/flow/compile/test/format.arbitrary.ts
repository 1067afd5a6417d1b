import fc from 'fast-check';
import {
  ACTION_KINDS,
  CHANNEL_PROTOCOLS,
  HTTP_METHODS,
  emptyModel,
  type ApiModel,
  type ChannelOperation,
  type Extensions,
  type FieldMap,
  type ModelAction,
  type ModelChannel,
  type ModelEntity,
  type ModelEvent,
  type ModelField,
  type ModelServer,
} from '../src/model';

/**
 * Arbitraries of models in the subset OpenAPI and AsyncAPI carry exactly: canonical field types
 * (no aliases), non-empty descriptions, `required`/`nullable` only when true, `ref`s only to
 * existing entities, unique names. The shared `model.arbitrary.ts` generates any IR (aliases,
 * unknown types, dangling refs) and is meant for form A; these keep the round trips exact.
 */

const IDENT = fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,7}$/);
export const ident = (): fc.Arbitrary<string> => IDENT;
const TEXT = fc.string({ minLength: 1, maxLength: 16 });
const text = (): fc.Arbitrary<string> => TEXT;

const extValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 2 }), fc.dictionary(ident(), tie('v'), { maxKeys: 2 })),
})).v;

/** `x-u…` keys, which no format reserves. */
const EXTENSIONS = fc.dictionary(fc.stringMatching(/^x-u[a-z0-9]{0,5}$/), extValue, { minKeys: 1, maxKeys: 2 }) as fc.Arbitrary<Extensions>;
export const extensions = (): fc.Arbitrary<Extensions> => EXTENSIONS;

const SCALARS = ['string', 'integer', 'number', 'boolean', 'date', 'datetime', 'uuid', 'binary'] as const;

/** A field without `required` (array items) of at most `depth` nesting levels. */
const fieldCache = new Map<string, fc.Arbitrary<ModelField>>();

export function canonicalField(refs: string[], depth = 2): fc.Arbitrary<ModelField> {
  const key = `${depth}:${refs.join('\u0000')}`;
  let arb = fieldCache.get(key);
  if (!arb) {
    arb = buildField(refs, depth);
    fieldCache.set(key, arb);
  }
  return arb;
}

function buildField(refs: string[], depth: number): fc.Arbitrary<ModelField> {
  const decorate = (base: fc.Arbitrary<ModelField>): fc.Arbitrary<ModelField> =>
    fc
      .tuple(base, fc.option(text(), { nil: undefined }), fc.boolean(), fc.option(extensions(), { nil: undefined }))
      .map(([f, description, nullable, ext]) => ({ ...f, ...(description && { description }), ...(nullable && { nullable: true }), ...(ext && { extensions: ext }) }));
  const scalar = fc.constantFrom(...SCALARS).chain((type) => {
    if (type === 'string') return fc.option(fc.constantFrom('email', 'uri'), { nil: undefined }).map((format): ModelField => ({ type, ...(format && { format }) }));
    if (type === 'integer') {
      return fc
        .tuple(fc.option(fc.constant('int64'), { nil: undefined }), fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 3 }), { nil: undefined }))
        .map(([format, values]): ModelField => ({ type, ...(format && { format }), ...(values && { enum: values }) }));
    }
    return fc.constant<ModelField>({ type });
  });
  const options: Array<fc.Arbitrary<ModelField>> = [
    decorate(scalar),
    decorate(fc.uniqueArray(ident(), { minLength: 1, maxLength: 3 }).map((values): ModelField => ({ type: 'enum', enum: values }))),
    decorate(fc.constant<ModelField>({ type: 'any' })),
  ];
  if (refs.length) options.push(fc.constantFrom(...refs).map((ref): ModelField => ({ type: 'ref', ref })));
  if (depth > 0) {
    options.push(decorate(canonicalField(refs, depth - 1).map((items): ModelField => ({ type: 'array', items }))));
    options.push(decorate(fc.option(canonicalFields(refs, depth - 1), { nil: undefined }).map((fields): ModelField => ({ type: 'object', ...(fields && { fields }) }))));
  }
  return fc.oneof(...options);
}

/** A field map (members maybe required). */
export function canonicalFields(refs: string[], depth = 2, minKeys = 0): fc.Arbitrary<FieldMap> {
  const field = fc.tuple(canonicalField(refs, depth), fc.boolean()).map(([f, required]) => (required ? { ...f, required: true } : f));
  return fc.dictionary(ident(), field, { minKeys, maxKeys: 3 });
}

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** Drops undefined members. */
const tidy = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function entitiesArb(modules: string[]): fc.Arbitrary<ModelEntity[]> {
  return fc.uniqueArray(ident(), { maxLength: 3 }).chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc
          .record({ description: opt(text()), module: modules.length ? opt(fc.constantFrom(...modules)) : fc.constant(undefined), fields: canonicalFields(names), extensions: opt(extensions()) })
          .map((r): ModelEntity => tidy({ name, ...r })),
      ),
    ),
  );
}

const PATHS = ['/orders', '/orders/{id}', '/orders/{id}/lines/{line}', '/products', '/a/{b}/c'];

/** Models for the OpenAPI round trip: modules, entities and actions (some without method and path). */
export function openApiModel(): fc.Arbitrary<ApiModel> {
  return fc.uniqueArray(ident(), { maxLength: 2 }).chain((modules) =>
    entitiesArb(modules).chain((entities) => {
      const refs = entities.map((e) => e.name);
      const action = fc.record({
        description: opt(text()),
        module: modules.length ? opt(fc.constantFrom(...modules)) : fc.constant(undefined),
        kind: opt(fc.constantFrom(...ACTION_KINDS)),
        route: opt(fc.tuple(fc.constantFrom(...HTTP_METHODS), fc.constantFrom(...PATHS))),
        input: opt(canonicalFields(refs, 1, 1)),
        output: opt(canonicalFields(refs, 1, 1)),
        emits: opt(fc.array(ident(), { maxLength: 2 })),
        extensions: opt(extensions()),
      });
      const actions = fc
        .uniqueArray(fc.tuple(ident(), action), { maxLength: 4, selector: ([name]) => name })
        .filter((list) => new Set(list.filter(([, a]) => a.route).map(([, a]) => a.route?.join(' '))).size === list.filter(([, a]) => a.route).length)
        .map((list) =>
          list.map(([name, { route, ...a }]): ModelAction => tidy({ name, ...a, ...(route && { method: route[0], path: route[1] }) })),
        );
      return actions.map((acts) => emptyModel({ version: '1.0', title: 'Generated', modules: modules.map((name) => ({ name })), entities, actions: acts }));
    }),
  );
}

function operationArb(events: string[], operationId: string): fc.Arbitrary<ChannelOperation> {
  return fc
    .record({ event: fc.constantFrom(...events), withId: fc.boolean(), groupId: opt(ident()), description: opt(text()) })
    .map(({ withId, ...o }) => tidy({ ...o, ...(withId && { operationId }) }));
}

/** Models for the AsyncAPI round trip: servers, entities, events (with entity_type and action) and channels over them. */
export function asyncApiModel(): fc.Arbitrary<ApiModel> {
  const servers = fc.dictionary(
    ident(),
    fc.record({ url: fc.constantFrom('kafka://broker:9092', 'nats://nats:4222', 'wss://hub.example.com'), protocol: fc.constantFrom('kafka', 'nats', 'ws'), description: opt(text()) }).map((s) => tidy(s) as ModelServer),
    { maxKeys: 2 },
  );
  return fc.tuple(servers, fc.uniqueArray(ident(), { maxLength: 2 })).chain(([srv, modules]) =>
    entitiesArb(modules).chain((entities) => {
      const refs = entities.map((e) => e.name);
      const events = fc.uniqueArray(ident(), { maxLength: 4 }).chain((names) =>
        fc.tuple(
          ...names.map((name) =>
            fc
              .record({
                description: opt(text()),
                module: modules.length ? opt(fc.constantFrom(...modules)) : fc.constant(undefined),
                entity_type: ident(),
                action: ident(),
                topic: opt(fc.stringMatching(/^[a-z]{1,5}(\.[a-z]{1,5}){1,2}$/)),
                payload: opt(canonicalFields(refs)),
                extensions: opt(extensions()),
              })
              .map((r): ModelEvent => tidy({ name, ...r })),
          ),
        ),
      );
      return events.chain((evs) => {
        const names = evs.map((e) => e.name);
        const channels: fc.Arbitrary<ModelChannel[]> = names.length
          ? fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}([./][a-z]{1,6}){0,2}$/), { maxLength: 3 }).chain((chNames) =>
              fc.tuple(
                ...chNames.map((name) =>
                  fc
                    .record({
                      description: opt(text()),
                      protocol: opt(fc.constantFrom(...CHANNEL_PROTOCOLS)),
                      publish: opt(operationArb(names, `pub_${name}`)),
                      subscribe: opt(operationArb(names, `sub_${name}`)),
                      extensions: opt(extensions()),
                    })
                    .map((r): ModelChannel => tidy({ name, ...r })),
                ),
              ),
            )
          : fc.constant([]);
        return channels.map((chs) =>
          emptyModel({ version: '1.0', title: 'Generated', ...(Object.keys(srv).length && { servers: srv }), modules: modules.map((name) => ({ name })), entities, events: evs, channels: chs }),
        );
      });
    }),
  );
}
