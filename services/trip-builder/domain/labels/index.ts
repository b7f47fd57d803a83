/**
 * Matching what people tell the app about their trips and places (labels, surveys, notes) to the trips and places
 * themselves, by e-mission's rules (its `emission/analysis/userinput/matcher.py`). Pure: no storage, no clock.
 */
export * from './input-entry.js';
export * from './timeline.js';
export * from './validity.js';
export * from './single-inputs.js';
export * from './additions.js';
export * from './input-index.js';
export * from './match-timeline.js';
export * from './explain-inputs.js';
