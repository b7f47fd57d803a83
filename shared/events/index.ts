export * from './topics.js';
export * from './usercache-entry.js';
export * from './timeseries-record.js';
export * from './dead-letter.js';
export * from './diary-document.js';
export * from './emission-enums.js';
export * from './entry-limits.js';
export * from './usercache-put-rules.js';
