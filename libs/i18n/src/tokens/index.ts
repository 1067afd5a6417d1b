export * from './settings-expander.service';
export * from './settings-tokens';
