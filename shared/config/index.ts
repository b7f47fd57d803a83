export * from './load-config.js';
export * from './exposure.js';
