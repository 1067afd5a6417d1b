export * from './settings-expander.service';
export * from './settings-tokens';
export * from './settings-tokens.module';
