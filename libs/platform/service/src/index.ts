export * from './bus-probe';
export * from './redaction';
export * from './run-service';
export * from './service-clients';
export * from './service-definition';
export * from './start-service';
export * from './tokens';
export * from './profile-resolver.provider';
