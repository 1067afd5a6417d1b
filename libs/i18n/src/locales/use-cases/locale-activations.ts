import { Injectable, Logger } from '@nestjs/common';

/**
 * Tells this process's listeners that a locale became active (created active, or switched on), so
 * what is kept per active locale (the page search indexes) fills it at once instead of waiting
 * for the next change of each record. In process only: the replica that took the write does the
 * work, and every replica rebuilds from the registry when it starts.
 */
@Injectable()
export class LocaleActivations {
  private readonly log = new Logger('LocaleActivations');
  private readonly listeners: Array<(code: string) => void> = [];

  onActivated(listener: (code: string) => void): void {
    this.listeners.push(listener);
  }

  activated(code: string): void {
    for (const listener of this.listeners) {
      try {
        listener(code);
      } catch (e) {
        // A listener's failure is its own: the locale write has already succeeded.
        this.log.warn(`after activating locale ${code}: ${(e as Error).message}`);
      }
    }
  }
}
