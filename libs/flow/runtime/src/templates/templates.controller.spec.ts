import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AllExceptionsFilter, createValidationPipe } from '@flowplane/platform/http';
import { STORE } from '@flowplane/platform/service';
import { createMemoryStore } from '@flowplane/platform/store';
import { type FlowTemplate, TEMPLATE_PROVIDERS } from './flow-template';
import { TemplateRegistry } from './template.registry';
import { InternalTemplatesController, TemplatesController } from './templates.controller';

const template: FlowTemplate = {
  id: 'crm/welcome',
  name: 'Welcome',
  description: 'Greets a new customer.',
  source: 'crm',
  tags: [],
  document: { nodes: [{ id: 'start', kind: 'start' }, { id: 'end', kind: 'end' }], edges: [{ id: 'e1', from: 'start', to: 'end' }] },
};

@Module({
  controllers: [TemplatesController, InternalTemplatesController],
  providers: [{ provide: STORE, useFactory: () => createMemoryStore() }, { provide: TEMPLATE_PROVIDERS, useValue: [{ source: 'crm', priority: 0, list: () => [template] }] }, TemplateRegistry],
})
class TemplatesProbeModule {}

/** The probe module listening on a free port, with the platform's error filter and validation. */
async function listening(): Promise<INestApplication> {
  const app = await NestFactory.create(TemplatesProbeModule, { logger: false });
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(createValidationPipe());
  await app.listen(0, '127.0.0.1');
  return app;
}

describe('GET /flows/templates/{id}: the id holds a slash', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    app = await listening();
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

describe('PUT /internal/templates/providers/{source}: names and descriptions are one line', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    app = await listening();
    base = await app.getUrl();
  });
  afterAll(() => app?.close());

  const register = (t: Partial<FlowTemplate>) =>
    fetch(`${base}/internal/templates/providers/crm`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ templates: [{ id: 'crm/other', name: 'Other', description: 'Another one.', document: template.document, ...t }] }),
    });

  it.each([
    ['name', { name: 'Line one\nLine two' }],
    ['name', { name: 'Line one\r\nLine two' }],
    ['description', { description: 'First line\u2028second line' }],
  ])('refuses a multi-line %s with 400 naming the field', async (field, t) => {
    const res = await register(t);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; details: { field: string; problems: string[] }[] };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.details).toEqual([{ field: `templates.0.${field}`, problems: [`${field} must be one line (no line breaks)`] }]);
    expect((await (await fetch(`${base}/flows/templates`)).json()) as unknown[]).toHaveLength(1);
  });

  it('registers a one-line name and lists it', async () => {
    expect((await register({ name: 'Other flow' })).status).toBe(200);
    const list = (await (await fetch(`${base}/flows/templates`)).json()) as { id: string; name: string }[];
    expect(list.map((t) => t.name)).toEqual(['Other flow', 'Welcome']);
  });
});
