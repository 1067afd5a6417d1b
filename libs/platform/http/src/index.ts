export * from './all-exceptions.filter';
export * from './domain.exception';
export * from './error-body';
export * from './json-depth';
export * from './request-context';
export * from './validation.pipe';
