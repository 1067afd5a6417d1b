import 'reflect-metadata';
import { deploymentsDefinition } from '@flowplane/deployments';
import { runServiceMain } from '@flowplane/platform/service';

void runServiceMain(deploymentsDefinition);
