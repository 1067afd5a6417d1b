import 'reflect-metadata';
import { searchDefinition } from '@flowplane/search';
import { runServiceMain } from '@flowplane/platform/service';

void runServiceMain(searchDefinition);
