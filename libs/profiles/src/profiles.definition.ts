import { SecretsEnv } from '@flowplane/platform/config';
import type { ServiceDefinition } from '@flowplane/platform/service';
import { ProfilesModule } from './profiles.module';

/** The profiles service: what it owns and which ports it uses. */
export const profilesDefinition: ServiceDefinition = {
  name: 'profiles',
  title: 'Flowplane profiles',
  description: 'Profile kinds, profiles and module settings.',
  defaultPort: 8083,
  uses: { bus: true, store: true },
  env: [SecretsEnv],
  module: () => ProfilesModule,
};
