export * from './taxonomy';
export * from './ruleSchema';
export * from './engine';
export * from './run';
export * from './rulesFile';
export { BUILTIN_RULES } from './builtinRules';
export { isErrorForm, isNoise, isEchoLine, isDockerPullLine } from './lines';
export { catastrophicReason } from './matcher';
export * from './analyze';
