export * from './app-error.js';
