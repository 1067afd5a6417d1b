import { Body, Controller, Get, HttpCode, Inject, Param, Post, type Type } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiExtension, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiParam, ApiPayloadTooLargeResponse, ApiSecurity, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ActiveUser, CurrentPrincipal, type Principal, Public } from '@flowplane/platform/auth';
import { DomainException } from '@flowplane/platform/http';
import { CONTROL_TYPES, DEFAULT_MESSAGE_TYPE, roomNameProblem } from './hub-envelope';
import { HubService } from './hub.service';
import { HUB_ROOM_POLICY, type RoomPolicy } from './room-policy';

/** OpenAPI extension on operations whose path is absolute (the hub mount, outside /api/v1). */
export const ABSOLUTE_PATH_EXTENSION = 'x-absolute-path';

const TYPE = /^[A-Za-z0-9_.:-]{1,64}$/;

const coordSchema = {
  type: 'object',
  description: 'The cross-replica bridge (COORD).',
  properties: {
    kind: { type: 'string', enum: ['noop', 'nats', 'redis'] },
    state: { type: 'string', enum: ['disabled', 'connecting', 'connected', 'disconnected', 'closed'] },
    since: { type: 'string', format: 'date-time' },
    reconnects: { type: 'integer' },
    lastError: { type: 'string', description: 'Short reason of the last coordinator failure (an error code); never a URL.' },
  },
};
const summarySchema = {
  status: { type: 'string', enum: ['ok', 'degraded'], description: '`degraded` when a coordinator is configured but unreachable (local delivery still works).' },
  connections: { type: 'integer', description: 'Open sockets on this replica.' },
  rooms: { type: 'integer', description: 'Rooms with at least one member on this replica.' },
  distributed: { type: 'boolean', description: 'True while the cross-replica bridge is connected.' },
  replicaId: { type: 'string' },
  coord: coordSchema,
};

/**
 * The hub's HTTP control plane under WS_MOUNT_PATH (not under /api/v1). Mounted by `mountHubRoutes`
 * so the mount path comes from the environment; the upgrade `GET <mount>/connect` is handled on the
 * HTTP server's `upgrade` event and is deliberately not an HTTP route (nor in the OpenAPI document).
 */
@ApiTags('hub')
@ApiExtension(ABSOLUTE_PATH_EXTENSION, true)
export class HubController {
  constructor(
    @Inject(HubService) private readonly hub: HubService,
    @Inject(HUB_ROOM_POLICY) private readonly policy: RoomPolicy,
  ) {}

  @Get('health')
  @Public()
  @ApiSecurity({})
  @ApiOperation({ summary: 'Hub liveness: connections, rooms, and whether the cross-replica bridge is active' })
  @ApiOkResponse({ schema: { type: 'object', properties: summarySchema } })
  health() {
    const s = this.hub.summary();
    const degraded = s.coord.kind !== 'noop' && s.coord.state !== 'connected';
    return { status: degraded ? 'degraded' : 'ok', ...s };
  }

  @Get('info')
  @ActiveUser()
  @ApiOperation({ summary: "Hub summary, its limits, and the caller's own open connections" })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: {
        ...summarySchema,
        startedAt: { type: 'string', format: 'date-time' },
        mountPath: { type: 'string' },
        limits: { type: 'object', additionalProperties: { type: 'number' } },
        caller: { type: 'object', properties: { sub: { type: 'string' }, connections: { type: 'integer' } } },
      },
    },
  })
  @ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.' })
  info(@CurrentPrincipal() principal: Principal) {
    const s = this.hub.settings;
    return {
      ...this.health(),
      startedAt: this.hub.startedAt.toISOString(),
      mountPath: s.mountPath,
      limits: {
        sendBuffer: s.sendBuffer,
        sendBufferBytes: s.sendBufferBytes,
        maxFrameBytes: s.maxFrameBytes,
        maxRoomsPerConnection: s.maxRoomsPerConnection,
        pingIntervalSeconds: s.pingIntervalMs / 1000,
        writeTimeoutSeconds: s.writeTimeoutMs / 1000,
      },
      caller: { sub: principal.sub, connections: this.hub.connectionsOf(principal.sub) },
    };
  }

  @Post('broadcast/:session_id')
  @ActiveUser()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Fans a JSON message out to the room on every replica',
    description:
      'The body (any JSON value: object, array, string, number, boolean or null) becomes the `data` of the envelope `{type, room, data, ts}` that every member receives. ' +
      'A string `type` field in an object body sets the envelope type (letters, digits, `_ . : -`, at most 64; default `message`; ' +
      'the control types subscribed, unsubscribed, pong, error and health are reserved). `delivered` counts members on this replica ' +
      'the message was handed to; `bridged: true` says it was also published to the coordinator for the other replicas. ' +
      'The default room policy lets a user broadcast to any room they could join (not to another user\'s `user:<sub>` room); service tokens and superusers to any room.',
  })
  @ApiParam({ name: 'session_id', description: 'The room (a session id or any valid room name).' })
  @ApiBody({ description: 'Any JSON value (Content-Type: application/json).', schema: { nullable: true, oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: {} }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }] } })
  @ApiOkResponse({ schema: { type: 'object', required: ['room', 'delivered'], properties: { room: { type: 'string' }, delivered: { type: 'integer' }, bridged: { type: 'boolean', enum: [true] } } } })
  @ApiBadRequestResponse({ description: 'Invalid room name, missing or non-JSON body, or invalid `type`.' })
  @ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.' })
  @ApiForbiddenResponse({ description: 'The room policy does not let the caller broadcast to this room.' })
  @ApiPayloadTooLargeResponse({ description: 'The envelope would be larger than WS_SEND_BUFFER_BYTES.' })
  async broadcast(@Param('session_id') room: string, @Body() body: unknown, @CurrentPrincipal() principal: Principal) {
    const problem = roomNameProblem(room);
    if (problem) throw new DomainException('HUB_INVALID_ROOM', 400, problem);
    // undefined: no body, or one that is not JSON (the JSON parser leaves other types unread).
    if (body === undefined) throw new DomainException('HUB_INVALID_BODY', 400, 'body must be a JSON value (Content-Type: application/json)');
    let type = DEFAULT_MESSAGE_TYPE;
    if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'type' in body) {
      const t = (body as { type?: unknown }).type;
      if (typeof t !== 'string' || !TYPE.test(t)) throw new DomainException('HUB_INVALID_TYPE', 400, 'type must be 1-64 letters, digits or _ . : -');
      if (CONTROL_TYPES.has(t)) throw new DomainException('HUB_INVALID_TYPE', 400, `type ${t} is reserved for the hub's control frames`);
      type = t;
    }
    const decision = await this.policy.canBroadcast(principal, room);
    if (decision !== true) throw new DomainException('HUB_FORBIDDEN', 403, decision);
    const bytes = this.hub.frameBytes(room, type, body);
    if (bytes > this.hub.settings.sendBufferBytes) {
      throw new DomainException('HUB_MESSAGE_TOO_LARGE', 413, `message envelope is ${bytes} bytes; the limit is WS_SEND_BUFFER_BYTES (${this.hub.settings.sendBufferBytes})`);
    }
    return this.hub.broadcast(room, type, body);
  }
}

/**
 * Mounts a controller class (without its own `@Controller`) at an absolute path such as the hub's
 * WS_MOUNT_PATH, which is only known at boot: returns a subclass carrying `@Controller(mount)` and
 * the absolute-path OpenAPI flag. Modules use it to add routes to the hub mount; the hub definition
 * excludes the mount from the /api/v1 prefix, so the OpenAPI generator emits the paths as they are.
 */
export function mountHubRoutes<T>(mountPath: string, routes: Type<T>, group?: 'authenticated' | 'public'): Type<T> {
  const mounted = class extends (routes as Type<object>) {};
  Object.defineProperty(mounted, 'name', { value: routes.name });
  ApiExtension(ABSOLUTE_PATH_EXTENSION, true)(routes);
  // The group's access applies to every route of the class; a route may still add permissions.
  if (group === 'authenticated') {
    ActiveUser()(mounted);
    ApiUnauthorizedResponse({ description: 'Missing or invalid bearer token.' })(mounted);
  } else if (group === 'public') {
    Public()(mounted);
    ApiSecurity({})(mounted);
  }
  Controller(mountPath.replace(/^\//, ''))(mounted);
  return mounted as unknown as Type<T>;
}
