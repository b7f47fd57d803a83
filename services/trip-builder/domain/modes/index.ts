/**
 * Mode inference (e-mission's `emission/analysis/classification/inference/mode/rule_engine.py`): e-mission's rule engine turns a section's sensed
 * motion, speed and the public-transport stops at its ends into WALKING, BICYCLING, CAR, BUS, TRAIN…, with the stops
 * read offline from an OpenStreetMap extract. Pure, except that reading an extract reads the bytes it is given.
 */
export * from './predicted-modes.js';
export * from './transit-stops.js';
export * from './transit-match.js';
export * from './collapse-modes.js';
export * from './rule-engine.js';
export * from './osm-elements.js';
export * from './osm-xml.js';
export * from './osm-pbf.js';
export * from './osm-reader.js';
export * from './stop-index.js';
export * from './section-modes.js';
