export * from './auth.decorators';
export * from './auth.guard';
export * from './auth.module';
export * from './principal';
export * from './route-walk';
export * from './token-verifier';
