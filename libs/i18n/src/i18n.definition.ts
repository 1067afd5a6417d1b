import type { ServiceDefinition } from '@flowplane/platform/service';
import { TranslationFlowsSeeder } from './auto-translate/flows/translation-flows.seeder';
import { I18nEnv } from './i18n.env';
import { I18nModule } from './i18n.module';
import { pageFastPath } from './content/http/page-fast-path';
import { catalogFastPath } from './translations/http/catalog-fast-path';

/** The i18n service: what it owns and which ports it uses. */
export const i18nDefinition: ServiceDefinition = {
  name: 'i18n',
  title: 'Flowplane i18n',
  description: 'Locales, message catalog, translations and localized content.',
  defaultPort: 8085,
  uses: { bus: true, store: true },
  env: [I18nEnv],
  module: () => I18nModule,
  // The translation flows can be published only once this service has an address for its fill node.
  onListen: (app) => app.get(TranslationFlowsSeeder, { strict: false }).settled(10_000),
  // Catalog polls (200 and 304 of a built body) and rendered pages answer before Express; the Nest routes do the rest.
  interceptRequest: (app, ctx) => {
    const catalog = catalogFastPath(app, ctx);
    const pages = pageFastPath(app, ctx);
    return (req, res) => catalog(req, res) || pages(req, res);
  },
};
