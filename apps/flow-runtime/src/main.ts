import 'reflect-metadata';
import { flowRuntimeDefinition } from '@flowplane/flow-runtime';
import { runServiceMain } from '@flowplane/platform/service';

void runServiceMain(flowRuntimeDefinition);
