export * from './tokenize';
export * from './flags';
export * from './models';
export * from './parse';
export * from './workload';
export * from './translate';
