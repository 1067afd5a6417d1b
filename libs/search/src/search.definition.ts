import type { ServiceDefinition } from '@flowplane/platform/service';
import { SearchModule } from './search.module';

/** The search service: what it owns and which ports it uses. */
export const searchDefinition: ServiceDefinition = {
  name: 'search',
  title: 'Flowplane search',
  description: 'Vector indexes, embedding and reindexers.',
  defaultPort: 8086,
  uses: { bus: true, store: true, vector: true },
  module: () => SearchModule,
};
