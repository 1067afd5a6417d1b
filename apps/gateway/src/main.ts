import 'reflect-metadata';
import { gatewayDefinition } from '@flowplane/gateway';
import { runServiceMain } from '@flowplane/platform/service';

void runServiceMain(gatewayDefinition);
