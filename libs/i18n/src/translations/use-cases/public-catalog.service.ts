import { createHash } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { CatalogTextExpander } from '../translation.service';
import { CachedTranslationService } from './cached-translation.service';

/** A serialized catalog response and its strong validator. */
export interface CatalogBody {
  locale: string;
  namespace: string;
  json: string;
  etag: string;
  /** True when settings tokens were expanded into it (a settings change makes it stale). */
  expanded: boolean;
}

/** Most catalog bodies kept (one per (namespace, locale) asked for). */
const MAX_BODIES = 2_000;

/**
 * `GET /i18n/messages` (catalog rule 6): the catalog as stored (placeholders for the client to fill)
 * with settings tokens expanded as plain text, serialized once per (namespace, locale) and kept
 * until a bucket of that namespace changes. The ETag is a hash of the body, so it is strong, the same
 * on every replica for the same content, and changes with every bucket version that changes the body.
 */
@Injectable()
export class PublicCatalogService {
  private readonly bodies = new Map<string, CatalogBody>();

  constructor(
    @Inject(CachedTranslationService) private readonly translations: CachedTranslationService,
    @Optional() @Inject(CatalogTextExpander) private readonly expander?: CatalogTextExpander,
  ) {
    translations.onInvalidate((ns) => {
      if (ns === undefined) this.bodies.clear();
      else for (const [k, b] of this.bodies) if (b.namespace === ns) this.bodies.delete(k);
    });
    expander?.onSettingsChanged(() => {
      for (const [k, b] of this.bodies) if (b.expanded) this.bodies.delete(k);
    });
  }

  /** The body of (ns, locale) when it is built and current; undefined otherwise (then `body` builds it). */
  cached(ns: string, locale: string): CatalogBody | undefined {
    return this.bodies.get(`${ns}\u0000${locale}`);
  }

  /** The catalog body of (ns, locale), from memory when nothing changed since it was built. */
  async body(ns: string, locale: string): Promise<CatalogBody> {
    const k = `${ns}\u0000${locale}`;
    const cached = this.bodies.get(k);
    if (cached) return cached;
    const messages = await this.translations.messages(ns, locale);
    let expanded = false;
    if (this.expander) {
      for (const key of Object.keys(messages)) {
        if (!messages[key].includes('[[')) continue;
        messages[key] = await this.expander.expandPlain(messages[key], locale);
        expanded = true;
      }
    }
    const json = JSON.stringify({ locale, namespace: ns, messages });
    const body: CatalogBody = { locale, namespace: ns, json, etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`, expanded };
    if (this.bodies.size >= MAX_BODIES) this.bodies.delete(this.bodies.keys().next().value as string);
    // A write that landed while this was built already dropped the entry; keep only a fresh build.
    if (this.translations.isCurrent(ns, locale)) this.bodies.set(k, body);
    return body;
  }
}

/** True when `ifNoneMatch` (an If-None-Match header) names `etag` or is `*`. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
