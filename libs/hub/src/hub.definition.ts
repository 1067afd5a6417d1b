import type { ServiceDefinition } from '@flowplane/platform/service';
import { HubModule } from './hub.module';
import { attachHubSockets } from './ws-health';

/** The hub service: WebSocket connections and rooms. */
export const hubDefinition: ServiceDefinition = {
  name: 'hub',
  title: 'Flowplane hub',
  description: 'WebSocket connections, rooms and the cross-replica bridge. WebSocket endpoints live under WS_MOUNT_PATH (default /ws).',
  defaultPort: 8087,
  uses: { bus: true },
  module: () => HubModule,
  onListen: (_app, server) => {
    attachHubSockets(server, process.env.WS_MOUNT_PATH ?? '/ws');
  },
};
