export * from './integration';
export * from './kafka-mock';
