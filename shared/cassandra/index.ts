export * from './create-client.js';
export * from './execute.js';
export * from './event-loop.js';
export * from './scan-day-partitions.js';
export * from './plan-batches.js';
