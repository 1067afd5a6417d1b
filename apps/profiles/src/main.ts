import 'reflect-metadata';
import { profilesDefinition } from '@flowplane/profiles';
import { runServiceMain } from '@flowplane/platform/service';

void runServiceMain(profilesDefinition);
