import { Module } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@flowplane/platform/service';
import type { FlowRuntimeEnv } from '../flow-runtime.env';
import { MailOutboxController } from './mail.controller';
import { MailOutboxRepository } from './mail-outbox.repository';
import { MAIL_TRANSPORT, MailerService, mailTransportFromConfig } from './mailer.service';

/** The mailer (`email.send` consumer, group `mailer`) and the dev outbox route. */
@Module({
  controllers: [MailOutboxController],
  providers: [
    MailOutboxRepository,
    { provide: MAIL_TRANSPORT, inject: [SERVICE_CONFIG], useFactory: (config: ServiceConfig & FlowRuntimeEnv) => mailTransportFromConfig(config) },
    MailerService,
  ],
  exports: [MailerService, MailOutboxRepository],
})
export class MailModule {}
