import { All, Controller, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Public, type Principal } from '@flowplane/platform/auth';
import { RouteDispatcher } from './route-dispatcher.service';

/**
 * Catch-all of flow-runtime under /api/v1, registered after every other route: the gateway sends
 * here every path no service owns. The route is public at this level; each route deployment's own
 * `auth` is enforced by the dispatcher. Dispatched routes are described in the gateway's
 * openapi.json from the route deployments (their contributes), not here.
 */
@ApiExcludeController()
@Controller()
export class DispatcherController {
  constructor(private readonly dispatcher: RouteDispatcher) {}

  @All('{*path}')
  @Public()
  async dispatch(@Req() req: Request, @Res() res: Response, @CurrentPrincipal() principal?: Principal): Promise<void> {
    const path = req.path.replace(/^\/api\/v1(?=\/|$)/, '') || '/';
    const result = await this.dispatcher.dispatch({
      method: req.method,
      path,
      query: req.query as Record<string, unknown>,
      headers: req.headers,
      body: req.body,
      principal,
      tokenSent: typeof req.headers.authorization === 'string' && req.headers.authorization !== '',
    });
    if (result.runId) res.setHeader('X-Run-Id', result.runId);
    if (result.variant) res.setHeader('X-Variant', result.variant);
    if (result.body === null && result.status === 204) {
      res.status(204).end();
      return;
    }
    res.status(result.status).json(result.body);
  }
}
