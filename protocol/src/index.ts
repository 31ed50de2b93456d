export * from './agent.js';
export * from './constants.js';
export * from './errors.js';
export * from './live-events.js';
export * from './rest.js';
