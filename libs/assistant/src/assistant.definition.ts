import type { ServiceDefinition } from '@flowplane/platform/service';
import { AssistantEnv } from './assistant.env';
import { AssistantModule } from './assistant.module';

/** The assistant service: what it owns and which ports it uses. */
export const assistantDefinition: ServiceDefinition = {
  name: 'assistant',
  title: 'Flowplane assistant',
  description: 'Assistant chats, handoffs and assistant templates.',
  defaultPort: 8084,
  uses: { bus: true, store: true },
  env: [AssistantEnv],
  module: () => AssistantModule,
};
