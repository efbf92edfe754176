export * from './scan';
export * from './summary';
export * from './fields';
export * from './project';
export * from './commits';
export * from './json';
export { DETECTORS, detect } from './detectors';
export { attributeAgents, agentOfDatasetFile } from './agentIdentity';
