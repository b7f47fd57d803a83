export * from './create-kafka.js';
