export * from './comparability';
export * from './stats';
export * from './verdict';
export * from './triage';
export * from './repeats';
export * from './outcomes';
export * from './attempts';
