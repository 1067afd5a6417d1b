import 'reflect-metadata';
import { i18nDefinition } from '@flowplane/i18n';
import { runServiceMain } from '@flowplane/platform/service';

void runServiceMain(i18nDefinition);
