import { Injectable, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';

/** A route one of flow-runtime's controllers answers under /api/v1 (`{name}` parameters; `ALL` for every method). */
export interface ApiRoute {
  method: string;
  path: string;
}

/**
 * The routes flow-runtime's own controllers answer under /api/v1, read from Nest's route metadata
 * once: a route deployment may not claim one (the controller would answer, never the dispatcher).
 * Internal routes and the dispatcher's catch-all are left out.
 */
@Injectable()
export class ApiRoutes {
  private cached?: ApiRoute[];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  list(): ApiRoute[] {
    this.cached ??= this.read();
    return this.cached;
  }

  private read(): ApiRoute[] {
    const out = new Map<string, ApiRoute>();
    for (const wrapper of this.discovery.getControllers()) {
      const type = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!type || !wrapper.instance) continue;
      const bases = asList(Reflect.getMetadata(PATH_METADATA, type));
      const proto = Object.getPrototypeOf(wrapper.instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(proto)) {
        const handler = proto[name] as object;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (paths === undefined || method === undefined) continue;
        for (const base of bases) {
          for (const sub of asList(paths)) {
            const path = toApiPath(`${base}/${sub}`);
            if (!path || path.startsWith('/internal') || path.includes('{*')) continue;
            const m = RequestMethod[method] ?? 'ALL';
            out.set(`${m} ${path}`, { method: m, path });
          }
        }
      }
    }
    return [...out.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  }
}

function asList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  return [typeof v === 'string' ? v : ''];
}

/** `flows/:id/versions` to `/flows/{id}/versions`; undefined for the root. */
function toApiPath(raw: string): string | undefined {
  const segments = raw.split('/').filter((s) => s !== '');
  if (!segments.length) return undefined;
  return '/' + segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/');
}
