/**
 * The tables more than one service reads or writes, one module each: the table's name, its row type and every
 * statement on it live in that module and nowhere else. A table only one service uses may stay with that service
 * (the console's ended sessions); the timeseries tables are shared/timeseries.
 */
export * from './composite-entries.js';
export * from './console-tokens.js';
export * from './deleted-users.js';
export * from './diary-days.js';
export * from './label-trip-metrics.js';
export * from './participant-activity.js';
export * from './pipeline-state.js';
export * from './section-metrics.js';
export * from './trip-label-counts.js';
export * from './usercache-documents.js';
export * from './users.js';
export * from './transit-stops.js';
export * from './program-configs.js';
export * from './profiles.js';
export * from './trips.js';
export * from './trip-builder-state.js';
export * from './custom-labels.js';
export * from './open-tables.js';
export * from './participant-days.js';
