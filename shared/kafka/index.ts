export * from './create-kafka.js';
export * from './group-progress.js';
export * from './request-chunks.js';
export * from './create-worker-consumer.js';
export * from './send-separating-refusals.js';
export * from './run-worker.js';
export * from './timer-warning.js';
export * from './keyed-producer.js';
