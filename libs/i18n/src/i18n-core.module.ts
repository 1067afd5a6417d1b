import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { I18nConfig } from './i18n.config';
import { I18nDisabledInterceptor } from './i18n-disabled.interceptor';

/** What every i18n feature shares: the typed I18N_* config and the disabled-mode gate. */
@Module({
  providers: [I18nConfig, { provide: APP_INTERCEPTOR, useClass: I18nDisabledInterceptor }],
  exports: [I18nConfig],
})
export class I18nCoreModule {}
