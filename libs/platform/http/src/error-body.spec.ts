import { BadRequestException, ForbiddenException, HttpException, NotFoundException, UnauthorizedException } from '@nestjs/common';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { routeNotFoundHandler, toErrorBody } from './all-exceptions.filter';
import { ERROR_CODE_PATTERN, errorBody } from './error-body';
import { requestIdMiddleware } from './request-context';
import { createValidationPipe } from './validation.pipe';

describe('errorBody', () => {
  it('always has a code: the given one, else the one of the status', () => {
    expect(errorBody(429, 'slow down')).toEqual({ statusCode: 429, error: 'Too Many Requests', code: 'TOO_MANY_REQUESTS', message: 'slow down' });
    expect(errorBody(409, 'taken', { code: 'ROUTE_CONFLICT', detail: 'x' })).toEqual({ statusCode: 409, error: 'Conflict', code: 'ROUTE_CONFLICT', message: 'taken', detail: 'x' });
  });

  it('takes the request id of the request being handled', async () => {
    const app = express();
    app.use((req, res, next) => requestIdMiddleware(req as never, res, next));
    app.get('/', (_req, res) => void res.json(errorBody(400, 'no')));
    const server = app.listen(0);
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { 'x-request-id': 'req-1' } });
      expect(await res.json()).toMatchObject({ code: 'BAD_REQUEST', requestId: 'req-1' });
    } finally {
      server.close();
    }
  });
});

describe('toErrorBody of Nest exceptions thrown without a code', () => {
  it.each([
    [new UnauthorizedException('missing bearer token'), 401, 'UNAUTHORIZED'],
    [new ForbiddenException('missing permission: admin'), 403, 'FORBIDDEN'],
    [new NotFoundException('no such thing'), 404, 'NOT_FOUND'],
    [new NotFoundException('Cannot GET /api/v1/nowhere'), 404, 'ROUTE_NOT_FOUND'],
    [new BadRequestException('bad'), 400, 'BAD_REQUEST'],
    [new HttpException('gone', 410), 410, 'GONE'],
    [new BadRequestException({ message: 'x', code: 'lower-case' }), 400, 'BAD_REQUEST'],
    [new BadRequestException({ message: 'x', code: 'OWN_CODE' }), 400, 'OWN_CODE'],
  ])('%s -> %i %s', (err, status, code) => {
    const body = toErrorBody(err);
    expect(body).toMatchObject({ statusCode: status, code, message: expect.any(String) });
    expect(body.code).toMatch(ERROR_CODE_PATTERN);
  });

  it('a validation failure is VALIDATION_FAILED with its details', async () => {
    class Dto {}
    const { IsString } = await import('class-validator');
    IsString()(Dto.prototype, 'name');
    const pipe = createValidationPipe();
    const err = await pipe.transform({ name: 1 }, { type: 'body', metatype: Dto }).catch((e: unknown) => e);
    expect(toErrorBody(err)).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED', details: [{ field: 'name', problems: [expect.any(String)] }] });
  });

  it('an unexpected error is INTERNAL_ERROR with an errorId', () => {
    expect(toErrorBody(new Error('secret internals'))).toEqual({ statusCode: 500, error: 'Internal Server Error', code: 'INTERNAL_ERROR', message: 'internal error', errorId: expect.any(String) });
  });
});

describe('routeNotFoundHandler', () => {
  it('answers what nothing else answered with the coded 404 and the request id', async () => {
    const app = express();
    app.use((req, res, next) => requestIdMiddleware(req as never, res, next));
    app.use(routeNotFoundHandler());
    const server = app.listen(0);
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/nowhere`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ statusCode: 404, error: 'Not Found', code: 'ROUTE_NOT_FOUND', message: 'no route for GET /nowhere', requestId: res.headers.get('x-request-id') });
    } finally {
      server.close();
    }
  });
});
