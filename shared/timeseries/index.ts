export * from './cassandra-timeseries.js';
export * from './cassandra-error-timeseries.js';
