export * from './patch';
export * from './pairs';
