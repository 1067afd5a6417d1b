import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AdminRoute } from '@flowplane/platform/auth';
import { ErrorBodyDto } from '@flowplane/platform/http';

/** An `/admin/i18n/*` route: an active user with `admin:access` (Authentication table). */
export const I18nAdmin = () =>
  applyDecorators(
    AdminRoute(),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ type: ErrorBodyDto, description: 'Missing or invalid bearer token.' }),
    ApiForbiddenResponse({ type: ErrorBodyDto, description: 'Inactive user, or missing admin:access.' }),
  );
