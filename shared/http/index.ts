export * from './require-json.js';
export * from './body-parser-error.js';
export * from './drain-body.js';
export * from './error-handler.js';
export * from './retry-after.js';
