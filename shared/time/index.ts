export * from './local-time.js';
export * from './plausible-timestamp.js';
export * from './calendar.js';
