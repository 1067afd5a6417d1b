import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AllExceptionsFilter } from '@flowplane/platform/http';
import { STORE } from '@flowplane/platform/service';
import { createMemoryStore } from '@flowplane/platform/store';
import { type FlowTemplate, TEMPLATE_PROVIDERS } from './flow-template';
import { TemplateRegistry } from './template.registry';
import { TemplatesController } from './templates.controller';

const template: FlowTemplate = {
  id: 'crm/welcome',
  name: 'Welcome',
  description: 'Greets a new customer.',
  source: 'crm',
  tags: [],
  document: { nodes: [{ id: 'start', kind: 'start' }, { id: 'end', kind: 'end' }], edges: [{ id: 'e1', from: 'start', to: 'end' }] },
};

@Module({
  controllers: [TemplatesController],
  providers: [{ provide: STORE, useFactory: () => createMemoryStore() }, { provide: TEMPLATE_PROVIDERS, useValue: [{ source: 'crm', priority: 0, list: () => [template] }] }, TemplateRegistry],
})
class TemplatesProbeModule {}

describe('GET /flows/templates/{id}: the id holds a slash', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    app = await NestFactory.create(TemplatesProbeModule, { logger: false });
    app.useGlobalFilters(new AllExceptionsFilter());
    await app.listen(0, '127.0.0.1');
    base = `${await app.getUrl()}/flows/templates`;
  });
  afterAll(() => app?.close());

  it.each(['crm/welcome', 'crm%2Fwelcome', 'crm%2fwelcome'])('serves %s', async (path) => {
    const res = await fetch(`${base}/${path}?format=ir`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: 'Welcome', nodes: [{ id: 'start' }, { id: 'end' }] });
  });

  it('answers 404 naming the decoded id, also for extra segments', async () => {
    for (const path of ['crm%2Fnope', 'crm/welcome/extra']) {
      const res = await fetch(`${base}/${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'TEMPLATE_NOT_FOUND' });
    }
    const body = (await (await fetch(`${base}/crm%2Fnope`)).json()) as { message: string };
    expect(body.message).toBe('no template crm/nope');
  });
});
