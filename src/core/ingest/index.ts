export * from './scan';
export * from './summary';
export * from './metrics';
export * from './commits';
export * from './json';
export { DETECTORS, detect } from './detectors';
