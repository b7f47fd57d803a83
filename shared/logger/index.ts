export * from './create-logger.js';
export * from './spec-log-format.js';
export * from './intake-log.js';
