/** The chunker, shared by the ingest route and the `assistant-ingest` CLI (no Nest imports). */
export * from './domain/chunker';
