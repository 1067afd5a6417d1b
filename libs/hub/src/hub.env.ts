import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { Sensitive } from '@flowplane/platform/config';

const toBool = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return value;
};
const toList = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value);
const toCoord = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() || 'noop' : value);

/** Hub settings (spec "Hub environment", plus the byte and frame caps and the coordinator URLs). */
export class HubEnv {
  /** Where the WebSocket endpoints are mounted (top level, outside /api/v1). */
  @Matches(/^\/[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, { message: 'WS_MOUNT_PATH must be a path such as /ws' })
  WS_MOUNT_PATH = '/ws';

  /** Keepalive ping interval; a client that misses two pongs is closed. Fractions allowed (tests). */
  @Type(() => Number) @IsNumber() @Min(0.05) @Max(3600)
  WS_PING_INTERVAL_SECONDS = 25;

  /** A write the client has not taken within this long closes the client (4008, `write timeout`). */
  @Type(() => Number) @IsNumber() @Min(0.05) @Max(3600)
  WS_WRITE_TIMEOUT_SECONDS = 10;

  /** Messages queued per client beyond what the socket took; one more closes it with 4008 `slow consumer`. */
  @Type(() => Number) @IsInt() @Min(1) @Max(100_000)
  WS_SEND_BUFFER = 32;

  /** Bytes queued per client; beyond this the client is closed with 4008 `slow consumer`. */
  @Type(() => Number) @IsInt() @Min(1024)
  WS_SEND_BUFFER_BYTES = 1024 * 1024;

  /** Largest client frame; a bigger one gets an `error` envelope (the socket stays open). */
  @Type(() => Number) @IsInt() @Min(256) @Max(16 * 1024 * 1024)
  WS_MAX_FRAME_BYTES = 64 * 1024;

  /** Rooms one connection may be in at once (bounds the memory a client can make the hub hold). */
  @Type(() => Number) @IsInt() @Min(1) @Max(100_000)
  WS_MAX_ROOMS_PER_CONNECTION = 256;

  /** Further Origins allowed on the handshake (comma separated, `*` for any); the same origin and no Origin header are always accepted. */
  @Transform(toList) @IsString({ each: true })
  WS_ALLOWED_ORIGINS: string[] = [];

  /** Require a token (query `token`) on the upgrade. */
  @Transform(toBool) @IsBoolean()
  WS_REQUIRE_AUTH = true;

  /** Cross-replica bridge: `nats`, `redis`, or `noop` (in-process only; also when unset). */
  @Transform(toCoord) @IsIn(['noop', 'nats', 'redis'], { message: 'COORD must be nats, redis or noop' })
  COORD = 'noop';

  /** NATS server(s) for COORD=nats (comma separated). */
  @Sensitive() @ValidateIf((o: HubEnv) => o.COORD === 'nats') @IsString({ message: 'NATS_URL is required when COORD=nats' })
  NATS_URL?: string = 'nats://127.0.0.1:4222';

  /** Redis for COORD=redis. */
  @Sensitive() @ValidateIf((o: HubEnv) => o.COORD === 'redis') @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string = 'redis://127.0.0.1:6379';

  /** The one subject (NATS) or channel (Redis) every replica publishes broadcasts on. */
  @Matches(/^[A-Za-z0-9_.:-]{1,200}$/, { message: 'HUB_COORD_SUBJECT may hold letters, digits and _ . : -' })
  HUB_COORD_SUBJECT = 'flowplane.hub.broadcast';

  /** Wait between reconnect attempts to the coordinator. */
  @Type(() => Number) @IsInt() @Min(10) @Max(60_000)
  HUB_COORD_RECONNECT_MS = 1000;

  /** This replica's id in bridged messages and /ws/health (default `<hostname>-<pid>-<random>`). */
  @IsOptional() @Matches(/^[A-Za-z0-9_.:-]{1,100}$/)
  HUB_REPLICA_ID?: string;
}
