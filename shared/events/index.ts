export * from './topics.js';
export * from './usercache-entry.js';
