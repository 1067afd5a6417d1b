import type { AddressInfo } from 'node:net';
import type { ServiceDefinition } from '@flowplane/platform/service';
import { AssistantEnv } from './assistant.env';
import { AssistantModule } from './assistant.module';
import { chatMessageFastPath } from './chats/http/chat-message.fast-path';
import { RagNodeRegistrar } from './knowledge/nodes/rag-node.registrar';

/** The assistant service: what it owns and which ports it uses. */
export const assistantDefinition: ServiceDefinition = {
  name: 'assistant',
  title: 'Flowplane assistant',
  description: 'Assistant chats, handoffs and assistant templates.',
  defaultPort: 8084,
  uses: { bus: true, store: true },
  env: [AssistantEnv],
  module: () => AssistantModule,
  // Chat messages skip the router, guard and pipe chain; the answer is the Nest route's (ADR 0038).
  interceptRequest: (app, ctx) => chatMessageFastPath(app, ctx),
  onListen: (app, server) => {
    const address = server.address() as AddressInfo;
    app.get(RagNodeRegistrar).start(`http://127.0.0.1:${address.port}`);
  },
};
