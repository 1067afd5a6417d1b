import type { Principal } from '@flowplane/platform/auth';

/** Nest token of the hub's room policy; provide your own `RoomPolicy` under it to replace the default. */
export const HUB_ROOM_POLICY = Symbol('HUB_ROOM_POLICY');

/** A decision: true to allow, or the reason it is refused (shown to the client). */
export type PolicyDecision = true | string;

/** Decides who may join a room and who may broadcast to it. May be async (a lookup). */
export interface RoomPolicy {
  /** `principal` is undefined for an anonymous socket (WS_REQUIRE_AUTH=false). */
  canJoin(principal: Principal | undefined, room: string): PolicyDecision | Promise<PolicyDecision>;
  canBroadcast(principal: Principal, room: string): PolicyDecision | Promise<PolicyDecision>;
}

const USER_ROOM = 'user:';

/**
 * The default policy. Joining: anyone the upgrade admitted may join any room, except that a
 * personal room `user:<sub>` is only for that user (never for anonymous sockets). Broadcasting:
 * service tokens and superusers anywhere; a user to any room they could join, so one user cannot
 * push into another's personal room.
 */
export class DefaultRoomPolicy implements RoomPolicy {
  canJoin(principal: Principal | undefined, room: string): PolicyDecision {
    if (!room.startsWith(USER_ROOM)) return true;
    if (principal && room.slice(USER_ROOM.length) === principal.sub) return true;
    return `room ${room} is the personal room of another user`;
  }

  canBroadcast(principal: Principal, room: string): PolicyDecision {
    if (principal.service || principal.superuser) return true;
    return this.canJoin(principal, room);
  }
}
