import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { DURATION_SETTING } from '@flowplane/llm';
import { Sensitive } from '@flowplane/platform/config';

/** flow-runtime settings. */
export class FlowRuntimeEnv {
  /** How often a replica looks for due scheduler entries, in ms (0 disables the scheduler on this replica). */
  @Type(() => Number) @IsInt() @Min(0) @Max(60_000)
  SCHEDULER_TICK_MS = 1000;

  /** Largest flow document accepted by POST /flows/{id}/versions (413 beyond it). */
  @Type(() => Number) @IsInt() @Min(1024)
  FLOW_MAX_DOCUMENT_BYTES = 1024 * 1024;

  /**
   * Partitions of an event-source or subscriber topic one replica runs at once: each partition's
   * events still run one after another, in order, and are committed after their run.
   */
  @Type(() => Number) @IsInt() @Min(1) @Max(64)
  FLOW_EVENT_CONCURRENCY = 4;

  /** How long runs and their events are kept. */
  @Type(() => Number) @IsInt() @Min(1)
  RUN_RETENTION_DAYS = 7;

  /** Most nodes a flow document may have (400 beyond it). */
  @Type(() => Number) @IsInt() @Min(1)
  FLOW_MAX_NODES = 500;

  /**
   * Identifies this replica's flow engine: owner of its checkpointed runs and name of its durable
   * result group. Keep it stable across restarts (a StatefulSet pod name, or the default
   * `<hostname>:<port>`) so a restarted replica resumes its own interrupted runs at once; a replica
   * with a new id adopts them once their lease (FLOW_CHECKPOINT_LEASE_MS) expires.
   */
  @IsOptional() @IsString() @Matches(/^[A-Za-z0-9_.:-]{1,100}$/)
  FLOW_ENGINE_INSTANCE_ID?: string;

  /** Lease of a checkpointed run's owner; another replica adopts the run this long after the owner stopped renewing. */
  @Type(() => Number) @IsInt() @Min(1000) @Max(3_600_000)
  FLOW_CHECKPOINT_LEASE_MS = 30_000;

  /** Default per-node timeout in ms when a node's manifest sets none (0 disables). */
  @Type(() => Number) @IsInt() @Min(0)
  FLOW_NODE_TIMEOUT_MS = 30_000;

  /**
   * Hosts a remote node's invoke URL may reach over plain http, besides loopback and the hosts of the
   * platform's own services (`<SERVICE>_URL`), which are always allowed; every other invoke URL must
   * be https (400 at registration). Comma-separated host names, `*.suffix` wildcards, IP addresses and
   * CIDR ranges (`crm,*.svc.cluster.local,10.0.0.0/8`); `*` allows http everywhere (development only).
   */
  @IsOptional() @IsString()
  REMOTE_NODE_ALLOWED_HOSTS?: string;

  /** Steps a run may execute before it fails with MAX_STEPS (the cycle guard). */
  @Type(() => Number) @IsInt() @Min(1)
  FLOW_MAX_STEPS = 1000;

  /** A dispatched route whose run takes longer answers 504 (the run is cancelled). */
  @Type(() => Number) @IsInt() @Min(100) @Max(600_000)
  ROUTE_TIMEOUT_MS = 30_000;

  /**
   * Bound of every model call, retries included: milliseconds or a duration (`3m`, `90s`); 0
   * disables it. Default 3 minutes; TRANSLATE_CALL_TIMEOUT feeds the same setting when this is unset.
   */
  @IsOptional() @Matches(DURATION_SETTING, { message: 'AI_CALL_TIMEOUT must be milliseconds or a duration such as 3m or 90s' })
  AI_CALL_TIMEOUT?: string;

  /**
   * Private, loopback or link-local hosts model calls may reach (refused otherwise): host names,
   * addresses or CIDR ranges, comma-separated (`localhost,10.0.0.0/8` for a local Ollama); `*` allows all.
   */
  @IsOptional() @IsString()
  LLM_ALLOWED_PRIVATE_HOSTS?: string;

  /** Retries of a model call after a 429, a 5xx or a network error (with backoff). */
  @Type(() => Number) @IsInt() @Min(0) @Max(10)
  LLM_MAX_RETRIES = 2;

  /** How long rows of the LLM usage ledger (`llm_usage`) are kept. */
  @Type(() => Number) @IsInt() @Min(1)
  LLM_USAGE_RETENTION_DAYS = 30;

  /**
   * Where the mailer delivers `email.send`: `smtp://user:pass@host:587` (STARTTLS when the server
   * offers it; `?requireTLS=true` insists) or `smtps://…:465` (implicit TLS). Unset: mails go to the
   * dev outbox (GET /admin/mail/outbox). The password never appears in logs or errors.
   */
  @Sensitive()
  @IsOptional() @Matches(/^smtps?:\/\/[^\s]+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  /** Sender of mails that name none. */
  @IsString()
  SMTP_FROM = 'Flowplane <no-reply@localhost>';

  /** Connection, greeting and socket timeout of one SMTP delivery attempt, in ms. */
  @Type(() => Number) @IsInt() @Min(100) @Max(600_000)
  SMTP_TIMEOUT_MS = 10_000;
}
