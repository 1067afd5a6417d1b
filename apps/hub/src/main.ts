import 'reflect-metadata';
import { hubDefinition } from '@flowplane/hub';
import { runServiceMain } from '@flowplane/platform/service';

void runServiceMain(hubDefinition);
