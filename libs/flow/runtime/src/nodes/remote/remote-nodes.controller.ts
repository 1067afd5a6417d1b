import { Body, Controller, Delete, HttpCode, Param, Put } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { INTERNAL_PERMS } from '@flowplane/contracts';
import { CurrentPrincipal, Internal, type Principal } from '@flowplane/platform/auth';
import { RegisterRemoteNodeDto, type RemoteNodeRegistrationView } from './remote-node.dto';
import { RemoteNodesService } from './remote-nodes.service';

/**
 * Other services register remote node handlers here (service token only; the gateway never exposes
 * `/internal/*`). The id is one path segment (`crm.lookup`, or `crm%2Flookup`) or two
 * (`crm/lookup`). PUT answers 200 with the registration (`created` tells a new id from a
 * replacement), 400 with `details` for an invalid body, 409 for a built-in id; DELETE answers 204,
 * 404 for an unknown id, 409 for a built-in.
 */
@Controller('internal/nodes')
@ApiExcludeController()
export class RemoteNodesController {
  constructor(private readonly remote: RemoteNodesService) {}

  @Put(':namespace/:name')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.nodesRegister)
  registerNamespaced(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Body() dto: RegisterRemoteNodeDto,
    @CurrentPrincipal() principal?: Principal,
  ): Promise<RemoteNodeRegistrationView> {
    return this.remote.register(`${namespace}/${name}`, dto, sourceOf(principal));
  }

  @Put(':id')
  @HttpCode(200)
  @Internal(INTERNAL_PERMS.nodesRegister)
  register(@Param('id') id: string, @Body() dto: RegisterRemoteNodeDto, @CurrentPrincipal() principal?: Principal): Promise<RemoteNodeRegistrationView> {
    return this.remote.register(id, dto, sourceOf(principal));
  }

  @Delete(':namespace/:name')
  @HttpCode(204)
  @Internal(INTERNAL_PERMS.nodesRegister)
  unregisterNamespaced(@Param('namespace') namespace: string, @Param('name') name: string): Promise<void> {
    return this.remote.unregister(`${namespace}/${name}`);
  }

  @Delete(':id')
  @HttpCode(204)
  @Internal(INTERNAL_PERMS.nodesRegister)
  unregister(@Param('id') id: string): Promise<void> {
    return this.remote.unregister(id);
  }
}

/** The registering service: `assistant` for `svc:assistant`. */
function sourceOf(principal: Principal | undefined): string {
  const sub = principal?.sub ?? 'unknown';
  return sub.startsWith('svc:') ? sub.slice(4) : sub;
}
