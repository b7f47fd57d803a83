export * from './create-kafka.js';
export * from './group-progress.js';
export * from './send-chunked.js';
