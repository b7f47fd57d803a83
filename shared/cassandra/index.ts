export * from './create-client.js';
export * from './execute.js';
