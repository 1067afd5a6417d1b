export * from './console-assets';
export * from './gateway.definition';
export * from './gateway.env';
export * from './gateway.module';
export * from './gateway-proxy';
export * from './openapi-merge';
export * from './route-table';
export * from './widget-assets';
