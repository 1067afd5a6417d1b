import type { ServiceConfig, ServiceDefinition } from '@flowplane/platform/service';
import { HubEnv } from './hub.env';
import { HubModule } from './hub.module';
import { HubSockets } from './hub-sockets';

export { HubEnv };

/** The hub service: WebSocket connections and rooms, broadcast, the cross-replica bridge. */
export const hubDefinition: ServiceDefinition = {
  name: 'hub',
  title: 'Flowplane hub',
  description:
    'WebSocket connections, rooms and the cross-replica bridge, mounted at WS_MOUNT_PATH (default /ws), outside /api/v1. ' +
    'Clients connect with a WebSocket upgrade on `GET <mount>/connect?token=<jwt>[&session_id=<room>|&room=<room>]` (not an HTTP operation, so not listed here), ' +
    'send `{"action":"subscribe"|"unsubscribe","room":"..."}` or `{"action":"ping"}`, and receive envelopes `{type, room, data, ts}`. ' +
    'A client whose send queue fills (WS_SEND_BUFFER messages or WS_SEND_BUFFER_BYTES bytes) is closed with 4008 `slow consumer`; on shutdown clients are closed with 1001.',
  defaultPort: 8087,
  uses: { bus: true },
  env: [HubEnv],
  module: (ctx) => HubModule.forRoot(ctx),
  // Spec: the hub mounts outside the API prefix.
  unprefixedMounts: (ctx) => [(ctx.config as ServiceConfig & HubEnv).WS_MOUNT_PATH],
  // Spec: a broadcast carries any JSON value as `data` (`"x"`, `42`, `null`, `true` as well).
  anyJsonBodyPaths: (ctx) => [`${(ctx.config as ServiceConfig & HubEnv).WS_MOUNT_PATH}/broadcast`],
  onListen: (app, server) => {
    const sockets = app.get(HubSockets);
    server.on('upgrade', (req, socket, head) => sockets.handleUpgrade(req, socket, head));
    // The platform stops the listener, then waits for every connection to end before Nest's
    // shutdown hooks run; upgraded sockets would hold that wait forever. Close them (1001) as
    // soon as the listener is asked to stop.
    const close = server.close.bind(server);
    server.close = ((cb?: (err?: Error) => void) => {
      void sockets.shutdown(Math.min(Number((app.get('HUB_SHUTDOWN_GRACE_MS') as number | undefined) ?? 2000), 5000));
      return close(cb);
    }) as typeof server.close;
  },
};
