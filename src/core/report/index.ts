export * from './report';
export { formatWhen } from './when';
