import type { AddressInfo } from 'node:net';
import type { ServiceDefinition } from '@flowplane/platform/service';
import { internalQueryFastPath } from './http/internal-query.fast-path';
import { searchQueryFastPath } from './http/search-query.fast-path';
import { SearchNodeRegistrar } from './nodes/search-node.registrar';
import { SearchEnv } from './search.env';
import { SearchModule } from './search.module';

/** The search service: what it owns and which ports it uses. */
export const searchDefinition: ServiceDefinition = {
  name: 'search',
  title: 'Flowplane search',
  description:
    'Vector indexes on the embedded ANN backend or Qdrant (SEARCH_BACKEND), text embedding through the configured provider, nearest-neighbour queries with payload filters, owner-driven reindexing behind an alias switch, and the svc/search-upsert and svc/search-query flow nodes.',
  defaultPort: 8086,
  uses: { bus: true, store: true, vector: true },
  env: [SearchEnv],
  module: (ctx) => SearchModule.forRoot(ctx),
  interceptRequest: (app, ctx) => {
    const internal = internalQueryFastPath(app, ctx);
    const query = searchQueryFastPath(app, ctx);
    return (req, res) => internal(req, res) || query(req, res);
  },
  onListen: (app, server) => {
    const address = server.address() as AddressInfo;
    app.get(SearchNodeRegistrar).start(`http://127.0.0.1:${address.port}`);
  },
};
