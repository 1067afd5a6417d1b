import type { INestApplication } from '@nestjs/common';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { AccessDeclaration } from './auth.decorators';
import { accessDeclarationOf } from './auth.guard';

export interface RouteInfo {
  controller: string;
  handler: string;
  method: string;
  path: string;
  declared: boolean;
  /** The route's access declaration, when it has one. */
  access?: AccessDeclaration;
}

/** Lists every HTTP route of a Nest application with whether it carries an access declaration. */
export function listRoutes(app: INestApplication): RouteInfo[] {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const out: RouteInfo[] = [];
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance || !wrapper.metatype) continue;
    const cls = wrapper.metatype;
    const base = String(Reflect.getMetadata(PATH_METADATA, cls) ?? '');
    for (const name of scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
      const fn = (instance as Record<string, unknown>)[name] as object;
      const path = Reflect.getMetadata(PATH_METADATA, fn);
      if (path === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, fn) as number] ?? 'GET';
      const access = accessDeclarationOf(reflector, fn, cls);
      out.push({ controller: cls.name, handler: name, method, path: `/${base}/${String(path)}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1'), declared: !!access, ...(access ? { access } : {}) });
    }
  }
  return out;
}
