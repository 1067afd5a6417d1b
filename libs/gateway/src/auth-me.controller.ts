import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, type Principal } from '@flowplane/platform/auth';

/** Who the bearer token names, as the console reads it to show only what the caller may do. */
export class AuthMeView {
  @ApiProperty({ example: 'alice', description: 'The token subject.' }) sub!: string;
  @ApiProperty({ type: [String], example: ['admin:access'], description: 'Permissions the token carries.' }) perms!: string[];
  @ApiProperty({ description: 'False for a user marked inactive: admin routes then answer 403.' }) active!: boolean;
  @ApiProperty({ description: 'A superuser passes every permission check.' }) superuser!: boolean;
}

/**
 * `GET /auth/me`: the caller as the platform sees it. Any valid token may ask (an inactive user
 * too, so a client can say why it is refused elsewhere); it answers from the verified claims only
 * and reaches no other service.
 */
@ApiTags('gateway')
@ApiBearerAuth()
@Controller('auth')
export class AuthMeController {
  @Get('me')
  @Authenticated()
  @ApiOperation({ summary: 'The caller of the bearer token: subject, permissions, active and superuser flags' })
  @ApiOkResponse({ type: AuthMeView })
  me(@CurrentPrincipal() principal: Principal): AuthMeView {
    return { sub: principal.sub, perms: [...principal.perms], active: principal.active, superuser: principal.superuser };
  }
}
