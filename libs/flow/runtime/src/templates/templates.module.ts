import { Module } from '@nestjs/common';
import { bundledTemplates } from './bundled.templates';
import { TEMPLATE_PROVIDERS } from './flow-template';
import { TemplateRegistry } from './template.registry';
import { InternalTemplatesController, TemplatesController } from './templates.controller';

/** Template registry and routes (issue 4 item 8). */
@Module({
  controllers: [TemplatesController, InternalTemplatesController],
  providers: [{ provide: TEMPLATE_PROVIDERS, useValue: [bundledTemplates] }, TemplateRegistry],
  exports: [TemplateRegistry],
})
export class TemplatesModule {}
