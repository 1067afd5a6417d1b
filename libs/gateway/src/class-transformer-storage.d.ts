// class-transformer ships its metadata storage as CommonJS without a declaration beside it.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
