import type { ServiceDefinition } from '@flowplane/platform/service';
import { DeploymentsModule } from './deployments.module';

/** The deployments service: what it owns and which ports it uses. */
export const deploymentsDefinition: ServiceDefinition = {
  name: 'deployments',
  title: 'Flowplane deployments',
  description: 'Deployments, weighted sticky variants and route claims.',
  defaultPort: 8082,
  uses: { bus: true, store: true },
  module: () => DeploymentsModule,
};
