export * from './for-each-bounded.js';
export * from './once.js';
export * from './stop-on-signals.js';
export * from './worker-main.js';
export * from './server-main.js';
