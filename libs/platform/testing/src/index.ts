export * from './integration';
export * from './kafka-mock';
export * from './engines';
