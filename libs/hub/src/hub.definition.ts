import { Matches } from 'class-validator';
import type { ServiceConfig, ServiceDefinition } from '@flowplane/platform/service';
import { HubModule } from './hub.module';
import { attachHubSockets } from './ws-health';

/** Hub settings. */
export class HubEnv {
  /** Where the WebSocket endpoints are mounted (top level, outside /api/v1). */
  @Matches(/^\/[A-Za-z0-9/_-]*$/, { message: 'WS_MOUNT_PATH must be a path such as /ws' })
  WS_MOUNT_PATH = '/ws';
}

/** The hub service: WebSocket connections and rooms. */
export const hubDefinition: ServiceDefinition = {
  name: 'hub',
  title: 'Flowplane hub',
  description: 'WebSocket connections, rooms and the cross-replica bridge. WebSocket endpoints live under WS_MOUNT_PATH (default /ws).',
  defaultPort: 8087,
  uses: { bus: true },
  env: [HubEnv],
  module: () => HubModule,
  onListen: (_app, server, ctx) => {
    attachHubSockets(server, (ctx.config as ServiceConfig & HubEnv).WS_MOUNT_PATH);
  },
};
