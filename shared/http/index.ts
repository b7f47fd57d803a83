export * from './require-json.js';
export * from './body-parser-error.js';
