import type { Classification } from './engine';
import { category } from './taxonomy';

/**
 * A failed image build is a `build-failed` role whatever the rules found in its log: the finding
 * (pyairports, nvcc out of memory, disk full, a base image that cannot be pulled …) stays as the
 * cause, with its evidence line, so the fix still points at the right thing.
 */
export function asBuildFailure(c: Classification): Classification {
  if (c.category === 'build-failed') return c;
  const found = c.category !== 'unclassified';
  const b = category('build-failed');
  return {
    ...c,
    category: 'build-failed',
    cause: c.cause ?? (found ? c.category : null),
    description: found ? `The image build failed: ${c.description}` : 'The image build failed; no known signature in its log (see the last error lines)',
    group: b.group,
    fixability: c.fixability === 'config' ? 'config' : b.fixability,
  };
}
