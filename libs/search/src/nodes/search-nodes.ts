import { SETTINGS_SCHEMA_DIALECT } from '@flowplane/flow/ir';

/** Manifests of the search flow nodes (spec "Search flow nodes"), registered with flow-runtime as remote nodes. */
export const SEARCH_UPSERT_NODE = 'svc/search-upsert';
export const SEARCH_QUERY_NODE = 'svc/search-query';

/** Route of each node on this service, relative to its base URL. */
export const SEARCH_NODE_PATHS: Record<string, string> = {
  [SEARCH_UPSERT_NODE]: '/internal/nodes/search-upsert',
  [SEARCH_QUERY_NODE]: '/internal/nodes/search-query',
};

const indexProp = { type: 'string', title: 'Index', description: 'Logical index name (without the prefix).', pattern: '^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$' };

export const SEARCH_NODE_MANIFESTS = [
  {
    id: SEARCH_UPSERT_NODE,
    name: 'Search upsert',
    kind: 'action',
    description:
      'Indexes one or more documents {id, text?, vector?, payload?} from the packet: `documents` (array), `document`, an array packet, or the packet itself when it has an `id`. Documents with an empty or missing vector are embedded from their text. Emits the packet with `index` and `upserted` (count) on `out`; failures go to `Error`.',
    settingsSchema: { $schema: SETTINGS_SCHEMA_DIALECT, type: 'object', required: ['index'], properties: { index: indexProp } },
    inputs: [{ port: 'in' }],
    outputs: [{ port: 'out' }, { port: 'Error' }],
  },
  {
    id: SEARCH_QUERY_NODE,
    name: 'Search query',
    kind: 'action',
    description:
      'Semantic query of an index by text (packet field `queryKey`, default `query`, else `text`) or by `vector`, with optional packet `payload`/`filter`. Emits the packet with `hits` [{id, score, payload}], `exhausted` and `index` on `out`; failures go to `Error`.',
    settingsSchema: {
      $schema: SETTINGS_SCHEMA_DIALECT,
      type: 'object',
      required: ['index'],
      properties: {
        index: indexProp,
        limit: { type: 'integer', title: 'Limit', minimum: 1, description: 'Top-K; default search.default_limit.' },
        queryKey: { type: 'string', title: 'Query field', default: 'query', description: 'Packet field holding the query text.' },
      },
    },
    inputs: [{ port: 'in' }],
    outputs: [{ port: 'out' }, { port: 'Error' }],
  },
] as const;
