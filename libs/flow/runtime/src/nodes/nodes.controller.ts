import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { AdminRoute } from '@flowplane/platform/auth';
import { NodeManifestView } from './dto/node-manifest.view';
import { NodeListingService } from './node-listing.service';

/** The node palette of the flow editor (issue 4 item 5). */
@ApiTags('flow nodes')
@ApiBearerAuth()
@Controller('flows/nodes')
export class NodesController {
  constructor(private readonly listing: NodeListingService) {}

  @Get()
  @AdminRoute()
  @ApiOperation({ summary: 'Every registered node manifest (ports, settings schema), with profile selectors filled with live profile ids' })
  @ApiOkResponse({ type: [NodeManifestView] })
  @ApiUnauthorizedResponse({ description: 'No or invalid token.' })
  @ApiForbiddenResponse({ description: 'Not an active user with admin:access.' })
  list(): Promise<NodeManifestView[]> {
    return this.listing.list();
  }
}
