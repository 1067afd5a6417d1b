import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsEmail,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';

/** Addresses without a top-level domain (`support@localhost`, intranet hosts) are valid recipients. */
const ADDRESS = { require_tld: false };

/**
 * Payload of `email.send` (`{to, subject, text, html?, replyTo?, tags?}` plus cc, bcc, from), emitted by
 * `svc/email-send` (the `assistant/handoff-notification` template) and consumed by flow-runtime's mailer. The spec does not show it; the shape follows the common denominator of SMTP and mail
 * APIs. At least one of `text` and `html` must be set. Delivery is idempotent on the envelope id.
 */
export class EmailSendPayload {
  @IsArray()
  @ArrayNotEmpty()
  @IsEmail(ADDRESS, { each: true })
  to!: string[];

  @IsOptional()
  @IsArray()
  @IsEmail(ADDRESS, { each: true })
  cc?: string[];

  @IsOptional()
  @IsArray()
  @IsEmail(ADDRESS, { each: true })
  bcc?: string[];

  /** Sender, `Name <address>` allowed; absent means the configured default sender. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  from?: string;

  @IsOptional()
  @IsEmail(ADDRESS)
  replyTo?: string;

  @IsString()
  @IsNotEmpty()
  subject!: string;

  /** Plain-text body; required when `html` is absent. */
  @ValidateIf((o: EmailSendPayload) => o.html === undefined)
  @IsString()
  @IsNotEmpty()
  text?: string;

  /** HTML body. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  html?: string;

  /** Labels for filtering and provider-side tagging (for example `assistant`, `handoff`). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  tags?: string[];

  /** Id of what caused the mail (for example a handoff id), for logs and tracing. */
  @IsOptional()
  @IsString()
  correlationId?: string;
}
