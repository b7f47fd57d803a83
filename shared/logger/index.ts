export * from './create-logger.js';
export * from './spec-log-format.js';
