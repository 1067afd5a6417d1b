import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * The error body every service and the gateway answer with, as an OpenAPI schema. Spec-defined
 * cases add their own top-level fields beside these (the route conflict's `detail` and
 * `conflicting_deployment_id`, for example), so the schema allows additional properties.
 */
export class ErrorBodyDto {
  @ApiProperty({ description: 'HTTP status code of the response.', example: 404 })
  statusCode!: number;

  @ApiProperty({ description: 'Standard reason phrase of the status.', example: 'Not Found' })
  error!: string;

  @ApiProperty({ description: 'Stable machine-readable code (upper snake case).', example: 'NOT_FOUND', pattern: '^[A-Z][A-Z0-9_]+$' })
  code!: string;

  @ApiProperty({ description: 'Human-readable explanation; never a stack trace.', example: 'flow demo/echo not found' })
  message!: string;

  @ApiProperty({ description: 'Id of the request, equal to the X-Request-Id response header.', example: '3f0c1f8e-6a52-4a8e-9a39-9c2d1a4c1b7e' })
  requestId!: string;

  @ApiPropertyOptional({
    description: 'Validation failures: one entry per failing field or JSON path with its problems.',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
  })
  details?: unknown[];

  @ApiPropertyOptional({ description: 'On 5xx: id under which the failure is logged with its stack.', example: 'b7d5a1e2-0c3f-4d8e-8f7a-2e6b9c1d4a50' })
  errorId?: string;
}
