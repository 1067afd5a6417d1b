import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

const toBool = ({ value }: { value: unknown }) => (typeof value === 'string' ? ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase()) : value);

/** Assistant settings (spec: Configuration, plus limits this service fixes). */
export class AssistantEnv {
  /** Chat retention in days, renewed on every append. */
  @Type(() => Number) @IsInt() @Min(1) @Max(3650)
  ASSISTANT_CHAT_TTL_DAYS = 30;

  /** When false, POST /assistant/messages and /assistant/handoff need a bearer token. */
  @Transform(toBool) @IsBoolean()
  ASSISTANT_ANONYMOUS_ALLOWED = true;

  /** Master switch of the handoff path. */
  @Transform(toBool) @IsBoolean()
  ASSISTANT_HANDOFF_ENABLED = true;

  /** The deployment that serves the chat. */
  @IsString() @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
  ASSISTANT_DEPLOYMENT_ID = 'assistant';

  /** How long the chat path trusts its copy of the deployment (every `deployments.changed` drops it at once); 0 asks the deployments service on every message. */
  @Type(() => Number) @IsInt() @Min(0) @Max(3_600_000)
  ASSISTANT_DEPLOYMENT_CACHE_MS = 10_000;

  /** Legacy single-flow setting: the flow of the deployment created when none exists (rule 8). */
  @IsOptional() @IsString() @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
  ASSISTANT_FLOW_ID?: string;

  /** True keeps the module flow on its published version even when the embedded template is newer. */
  @Transform(toBool) @IsBoolean()
  ASSISTANT_FLOW_SKIP_AUTO_UPGRADE = false;

  /** Longest user message in characters (400 beyond it). */
  @Type(() => Number) @IsInt() @Min(1) @Max(100_000)
  ASSISTANT_MAX_MESSAGE_CHARS = 4000;

  /** Earlier turns sent to the flow with a new message. */
  @Type(() => Number) @IsInt() @Min(0) @Max(500)
  ASSISTANT_HISTORY_TURNS = 20;

  /** Messages a minute per session of anonymous callers (0 disables). */
  @Type(() => Number) @IsInt() @Min(0)
  ASSISTANT_RATE_LIMIT = 20;

  /** Messages a minute per client address of anonymous callers (0 disables). */
  @Type(() => Number) @IsInt() @Min(0)
  ASSISTANT_RATE_LIMIT_PER_ADDRESS = 300;

  /** Longest a chat run may take before the stream ends with an error frame, in ms. */
  @Type(() => Number) @IsInt() @Min(100) @Max(3_600_000)
  ASSISTANT_RUN_TIMEOUT_MS = 120_000;

  /** How often expired chats are swept, in ms (0 leaves it to the store's TTL index). */
  @Type(() => Number) @IsInt() @Min(0)
  ASSISTANT_SWEEP_INTERVAL_MS = 60_000;

  /** Register svc/assistant-rag-context with flow-runtime at startup (retried until it answers). */
  @Transform(toBool) @IsBoolean()
  ASSISTANT_REGISTER_NODES = true;

  /** Base URL flow-runtime uses to reach this service's node route; default ASSISTANT_URL, else the address this process listens on. */
  @IsOptional() @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  ASSISTANT_NODE_BASE_URL?: string;
}
