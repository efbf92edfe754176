export * from './logIndex';
export * from './text';
export * from './truncation';
