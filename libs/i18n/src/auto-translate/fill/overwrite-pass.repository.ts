import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { STORE } from '@flowplane/platform/service';
import type { Collection, Store, StoreDocument } from '@flowplane/platform/store';
import { I18nConfig } from '../../i18n.config';

interface OverwritePassDocument extends StoreDocument {
  startedAt: Date;
  expiresAt: Date;
}

/** What picks the cells of an overwrite pass: two calls with the same selection continue one pass. */
export interface OverwriteSelection {
  mode: string;
  ns?: string;
  prefix?: string;
  keys?: readonly string[];
  locales?: readonly string[];
  includeProtected: boolean;
}

/** A pass nobody continued for this long is over: the next call with its selection starts afresh. */
export const OVERWRITE_PASS_IDLE_MS = 30 * 60_000;

/**
 * Open overwrite passes of translate-missing (collection `i18n_overwrite_passes`). An overwrite
 * replaces machine text written before its pass started; a route call works through a capped batch,
 * so the pass has to outlive one call for "re-run until keysProcessed is 0" to end. It lives in the
 * store, not in memory, so consecutive calls reaching different replicas continue the same pass.
 */
@Injectable()
export class OverwritePassRepository implements OnModuleInit {
  static readonly COLLECTION = 'i18n_overwrite_passes';
  private readonly docs: Collection<OverwritePassDocument>;

  constructor(
    @Inject(STORE) store: Store,
    @Inject(I18nConfig) private readonly config: I18nConfig,
  ) {
    this.docs = store.collection<OverwritePassDocument>(OverwritePassRepository.COLLECTION);
  }

  async onModuleInit(): Promise<void> {
    if (this.config.enabled) await this.docs.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0, name: 'idle' });
  }

  /**
   * When the open pass of `selection` started, extending its life; a new pass starting `now` when
   * there is none. A dry run (`open: false`) looks without opening one.
   */
  async startedAt(selection: OverwriteSelection, now: Date, open = true): Promise<Date> {
    const _id = passId(selection);
    // TTL is never trusted: an expired pass is read as absent.
    const live = await this.docs.findOne({ _id, expiresAt: { $gt: now } });
    if (!open) return live?.startedAt ?? now;
    const startedAt = live?.startedAt ?? now;
    await this.docs.updateOne({ _id }, { $set: { startedAt, expiresAt: new Date(now.getTime() + OVERWRITE_PASS_IDLE_MS) } }, { upsert: true });
    return startedAt;
  }

  /** The pass is done (a call found nothing left): the next overwrite with this selection is a new one. */
  async finish(selection: OverwriteSelection): Promise<void> {
    await this.docs.deleteOne({ _id: passId(selection) });
  }
}

function passId(s: OverwriteSelection): string {
  const canonical = JSON.stringify([s.mode, s.ns ?? null, s.prefix ?? null, s.keys ? [...s.keys].sort() : null, s.locales ? [...s.locales].sort() : null, s.includeProtected]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}
