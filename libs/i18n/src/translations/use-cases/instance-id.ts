import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

/**
 * This service instance: its id travels on `i18n.updated` so the writer skips its own echo, and its
 * cache-invalidation consumer group is its own (every replica must receive every broadcast). Per
 * Nest application rather than per host, so two instances in one process still differ.
 */
@Injectable()
export class I18nInstance {
  readonly id = `i18n-${randomUUID()}`;
}
