export * from './create-codec.js';
