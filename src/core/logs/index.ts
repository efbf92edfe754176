export * from './logIndex';
export * from './text';
export * from './truncation';
export * from './printedMetrics';
