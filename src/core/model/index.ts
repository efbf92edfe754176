export * from './enums';
export * from './run';
export * from './commit';
export * from './files';
export * from './agentRun';
export * from './workload';
export * from './dict';
