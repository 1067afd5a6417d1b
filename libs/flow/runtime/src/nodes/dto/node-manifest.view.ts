import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One typed port of a node. */
export class NodePortView {
  @ApiProperty({ example: 'Email' }) port!: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'JSON Schema of the packet on this port.' })
  schema?: Record<string, unknown>;
  @ApiPropertyOptional() description?: string;
}

/** A registered node as the editor sees it (`GET /flows/nodes`). */
export class NodeManifestView {
  @ApiProperty({ example: 'svc/email-send', description: 'The id flow nodes reference as action_ref.' }) id!: string;
  @ApiProperty({ example: 'Send email' }) name!: string;
  @ApiProperty({ enum: ['start', 'end', 'action', 'event', 'gateway', 'condition', 'wait', 'parallel'] }) kind!: string;
  @ApiPropertyOptional() description?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'JSON Schema of the node config with the x-profile-kind, x-overrides, x-profile-overridable, x-order and x-ui.order hints. A profile selector property carries an `enum` of the live profile ids of its kind, or `x-options-unavailable: true` when profiles could not be listed.',
  })
  settingsSchema?: Record<string, unknown>;
  @ApiProperty({ type: [NodePortView] }) inputs!: NodePortView[];
  @ApiProperty({ type: [NodePortView] }) outputs!: NodePortView[];
  @ApiPropertyOptional({ description: 'Default per-step timeout in ms.' }) timeoutMs?: number;
  @ApiProperty({ description: 'True for a remote node: another service registered it and runs each step over HTTP.' }) remote!: boolean;
  @ApiPropertyOptional({ example: 'assistant', description: 'The service that registered a remote node.' }) source?: string;
}
