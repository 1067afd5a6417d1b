import 'reflect-metadata';
import { assistantDefinition } from '@flowplane/assistant';
import { runServiceMain } from '@flowplane/platform/service';

void runServiceMain(assistantDefinition);
