export * from './flow-document';
