export * from './cassandra-timeseries.js';
export * from './cassandra-error-timeseries.js';
export * from './store-dead-letter.js';
