export * from './integration';
