export * from './cassandra-timeseries.js';
