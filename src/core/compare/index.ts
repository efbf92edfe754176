export * from './metrics';
export * from './comparability';
export * from './triage';
