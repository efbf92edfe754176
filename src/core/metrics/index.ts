export * from './catalogue';
export * from './printed';
export * from './evidence';
export * from './headline';
export * from './samples';
