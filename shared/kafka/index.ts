export * from './create-kafka.js';
export * from './send-chunked.js';
