export * from './all-exceptions.filter';
export * from './client-error.handler';
export * from './domain.exception';
export * from './error-body';
export * from './json-depth';
export * from './request-context';
export * from './request-guards';
export * from './validation.pipe';
