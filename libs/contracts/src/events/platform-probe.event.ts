import { IsInt, IsNotEmpty, IsOptional, IsString, Min } from 'class-validator';

/** Payload of `platform.probe` (our own topic): the gateway's bus round-trip check. */
export class PlatformProbePayload {
  /** Correlates the answers with the probe. */
  @IsString()
  @IsNotEmpty()
  probeId!: string;

  /** The service that sent the probe. */
  @IsString()
  @IsNotEmpty()
  from!: string;
}

/** Payload of `platform.probe_ack` (our own topic): one service's answer to a probe. */
export class PlatformProbeAckPayload {
  @IsString()
  @IsNotEmpty()
  probeId!: string;

  /** The answering service. */
  @IsString()
  @IsNotEmpty()
  service!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  pid?: number;
}
