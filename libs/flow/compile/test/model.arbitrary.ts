import fc from 'fast-check';
import {
  ACTION_KINDS,
  type ApiModel,
  CHANNEL_PROTOCOLS,
  type ChannelOperation,
  type Extensions,
  FIELD_TYPES,
  type FieldMap,
  HTTP_METHODS,
  type ModelAction,
  type ModelChannel,
  type ModelEntity,
  type ModelEvent,
  type ModelField,
  type ModelFlowGraph,
  type ModelModule,
  type ModelSchedule,
  type ModelServer,
  type ModelWorkflow,
  type ModelWorkflowStep,
  STEP_KINDS,
} from '../src/model';

/**
 * fast-check arbitraries for the canonical IR, shared by the format specs. Generated models follow
 * the IR conventions: optional members are absent (never undefined), `extensions` are never empty,
 * names may be odd (quotes, `/`, `~`, YAML-looking text) to stress writers and pointers. They are
 * not necessarily valid (unknown types and references occur): use them for round trips.
 */

/** Strings YAML and JSON writers must quote or escape. */
const TRICKY = ['', '1.0', '007', 'true', 'null', '~', 'yes', '- item', 'a: b', '#hash', ' lead', 'trail ', 'multi\nline', 'quote"s', "it's", 'a/b~c', '@at', '{x}', '[y]', 'ünïcødé ✓'];

export const arbitraryText = (): fc.Arbitrary<string> => fc.oneof({ arbitrary: fc.string({ maxLength: 12 }), weight: 3 }, { arbitrary: fc.constantFrom(...TRICKY), weight: 1 });

/** Map keys and names: identifiers, sometimes with pointer-escaped characters. */
export const arbitraryName = (): fc.Arbitrary<string> =>
  fc.oneof({ arbitrary: fc.stringMatching(/^[a-z][a-z0-9_.]{0,10}$/), weight: 4 }, { arbitrary: fc.constantFrom('a/b', 'til~de', 'with space', '1', 'x.y.z'), weight: 1 });

const extensionValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    arbitraryText(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/), tie('value'), { maxKeys: 3 }),
  ),
})).value;

export const arbitraryExtensions = (): fc.Arbitrary<Extensions> =>
  fc.dictionary(fc.stringMatching(/^x-[a-z][a-z0-9-]{0,8}$/), extensionValue, { minKeys: 1, maxKeys: 3 }) as fc.Arbitrary<Extensions>;

const fieldType = fc.oneof({ arbitrary: fc.constantFrom(...FIELD_TYPES), weight: 5 }, { arbitrary: fc.constantFrom('strnig', 'decimal', 'timestamp'), weight: 1 });

export const arbitraryField = (): fc.Arbitrary<ModelField> =>
  fc.letrec<{ field: ModelField; fields: FieldMap }>((tie) => ({
    field: fc.record(
      {
        type: fieldType,
        required: fc.boolean(),
        enum: fc.array(fc.oneof(arbitraryText(), fc.integer(), fc.boolean()), { maxLength: 4 }),
        description: arbitraryText(),
        format: fc.constantFrom('email', 'uri', 'int64', 'date-time'),
        items: tie('field'),
        fields: tie('fields'),
        ref: arbitraryName(),
        nullable: fc.boolean(),
        extensions: arbitraryExtensions(),
      },
      { requiredKeys: ['type'] },
    ),
    fields: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant({}), fc.dictionary(arbitraryName(), tie('field'), { maxKeys: 3 })),
  })).field;

export const arbitraryFields = (): fc.Arbitrary<FieldMap> => fc.dictionary(arbitraryName(), arbitraryField(), { maxKeys: 4 });

const names = () => fc.array(arbitraryName(), { maxLength: 3 });

const moduleArb: fc.Arbitrary<ModelModule> = fc.record(
  { name: arbitraryName(), description: arbitraryText(), version: fc.constantFrom('1.0', '2.1.3', '0'), provides: names(), depends_on: names(), extensions: arbitraryExtensions() },
  { requiredKeys: ['name'] },
);

const entityArb: fc.Arbitrary<ModelEntity> = fc.record(
  { name: arbitraryName(), description: arbitraryText(), module: arbitraryName(), fields: arbitraryFields(), extensions: arbitraryExtensions() },
  { requiredKeys: ['name', 'fields'] },
);

const eventArb: fc.Arbitrary<ModelEvent> = fc.record(
  {
    name: arbitraryName(),
    description: arbitraryText(),
    module: arbitraryName(),
    entity_type: arbitraryName(),
    action: arbitraryName(),
    topic: arbitraryName(),
    payload: arbitraryFields(),
    extensions: arbitraryExtensions(),
  },
  { requiredKeys: ['name'] },
);

const actionArb: fc.Arbitrary<ModelAction> = fc.record(
  {
    name: arbitraryName(),
    description: arbitraryText(),
    module: arbitraryName(),
    kind: fc.constantFrom(...ACTION_KINDS),
    method: fc.constantFrom(...HTTP_METHODS),
    path: fc.constantFrom('/orders', '/orders/{id}', '/a/{b}/c'),
    input: arbitraryFields(),
    output: arbitraryFields(),
    emits: names(),
    extensions: arbitraryExtensions(),
  },
  { requiredKeys: ['name'] },
);

const stepArb: fc.Arbitrary<ModelWorkflowStep> = fc.record(
  { id: arbitraryName(), kind: fc.constantFrom(...STEP_KINDS), action: arbitraryName(), event: arbitraryName(), next: arbitraryName(), on_error: arbitraryName(), extensions: arbitraryExtensions() },
  { requiredKeys: ['id'] },
);

const workflowArb: fc.Arbitrary<ModelWorkflow> = fc.record(
  { name: arbitraryName(), description: arbitraryText(), module: arbitraryName(), triggers: names(), steps: fc.array(stepArb, { maxLength: 4 }), extensions: arbitraryExtensions() },
  { requiredKeys: ['name', 'steps'] },
);

const operationArb: fc.Arbitrary<ChannelOperation> = fc.record(
  { event: arbitraryName(), operationId: arbitraryName(), groupId: arbitraryName(), description: arbitraryText() },
  { requiredKeys: ['event'] },
);

const channelArb: fc.Arbitrary<ModelChannel> = fc.record(
  {
    name: arbitraryName(),
    description: arbitraryText(),
    protocol: fc.oneof(fc.constantFrom(...CHANNEL_PROTOCOLS), fc.constant('carrier-pigeon')),
    publish: operationArb,
    subscribe: operationArb,
    extensions: arbitraryExtensions(),
  },
  { requiredKeys: ['name'] },
);

const scheduleArb: fc.Arbitrary<ModelSchedule> = fc.record(
  { name: arbitraryName(), description: arbitraryText(), cron: fc.constantFrom('0 * * * *', '*/5 * * * *', '30 2 * * 1-5'), action: arbitraryName(), extensions: arbitraryExtensions() },
  { requiredKeys: ['name', 'cron'] },
);

const serverArb: fc.Arbitrary<ModelServer> = fc.record(
  { url: fc.constantFrom('https://api.example.com', 'kafka://broker:9092', 'ws://localhost:8080/hub'), protocol: fc.constantFrom('https', 'kafka', 'ws'), description: arbitraryText() },
  { requiredKeys: ['url'] },
);

const flowArb: fc.Arbitrary<ModelFlowGraph> = fc.record({
  nodes: fc.dictionary(
    arbitraryName(),
    fc.record({ operationId: arbitraryName(), kind: fc.constantFrom('source', 'action', 'llm'), summary: arbitraryText() }, { requiredKeys: [] }),
    { maxKeys: 3 },
  ),
  edges: fc.array(
    fc.record(
      { from: arbitraryName(), to: arbitraryName(), delivery: fc.record({ mode: fc.constantFrom('direct', 'durable', 'stream') }), packet: arbitraryName() },
      { requiredKeys: ['from', 'to'] },
    ),
    { maxLength: 3 },
  ),
});

/** An ApiModel with every section populated at random (small sizes). */
export function arbitraryModel(): fc.Arbitrary<ApiModel> {
  return fc.record(
    {
      version: fc.constantFrom('1.0', '', '2'),
      title: arbitraryText(),
      description: arbitraryText(),
      apiVersion: fc.constantFrom('1.0.0', '2.3.0'),
      servers: fc.dictionary(arbitraryName(), serverArb, { maxKeys: 2 }),
      modules: fc.array(moduleArb, { maxLength: 3 }),
      entities: fc.array(entityArb, { maxLength: 3 }),
      events: fc.array(eventArb, { maxLength: 3 }),
      actions: fc.array(actionArb, { maxLength: 3 }),
      workflows: fc.array(workflowArb, { maxLength: 2 }),
      channels: fc.array(channelArb, { maxLength: 2 }),
      schedules: fc.array(scheduleArb, { maxLength: 2 }),
      flow: flowArb,
      extensions: arbitraryExtensions(),
    },
    { requiredKeys: ['modules', 'entities', 'events', 'actions', 'workflows', 'channels', 'schedules'] },
  );
}
