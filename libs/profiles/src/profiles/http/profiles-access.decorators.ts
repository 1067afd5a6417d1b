import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ActiveUser, RequireAnyPerm, RequirePerms } from '@flowplane/platform/auth';
import { ProfilesErrorDto } from '../dto/profiles-error.dto';

/** Permission that grants every profile route. */
export const PROFILES_ALL_PERM = 'profiles:*';
export const PROFILES_READ_PERM = 'profiles:read';
export const PROFILES_WRITE_PERM = 'profiles:write';

function profileAccess(perms: string[]) {
  return applyDecorators(
    ActiveUser(),
    RequirePerms('admin:access'),
    RequireAnyPerm(...perms),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ type: ProfilesErrorDto, description: 'Missing or invalid bearer token.' }),
    ApiForbiddenResponse({
      type: ProfilesErrorDto,
      description: `Inactive user, or missing admin:access or one of ${perms.join(', ')}.`,
    }),
  );
}

/**
 * A profile read: an active user with `admin:access` and any profiles permission (`profiles:read`,
 * `profiles:write` or `profiles:*`; superusers pass). The spec grants profile routes to "one of the
 * profiles:* permissions", and an editor must see what it edits.
 */
export const ProfilesRead = () => profileAccess([PROFILES_READ_PERM, PROFILES_WRITE_PERM, PROFILES_ALL_PERM]);
/** A profile write: an active user with `admin:access` and `profiles:write` or `profiles:*` (superusers pass). */
export const ProfilesWrite = () => profileAccess([PROFILES_WRITE_PERM, PROFILES_ALL_PERM]);
