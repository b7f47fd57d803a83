export * from './topics.js';
export * from './usercache-entry.js';
export * from './emission-enums.js';
export * from './entry-limits.js';
