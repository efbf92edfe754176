import { existsSync } from 'node:fs';
import { ReadRefused, readTextBoundedSync } from '../platform/boundedRead';
import * as path from 'node:path';
import { MAX_LABELS_BYTES, parseLabels, type Label } from '../core/classify';

type Out = (s: string) => void;

export const labelsFile = (folder: string) => path.join(folder, '.bench-triage', 'labels.json');

/** `<folder>/.bench-triage/labels.json`; its problems go to stderr, naming the file and field; loading goes on. */
export function loadLabels(folder: string, err: Out): Label[] {
  const file = labelsFile(folder);
  if (!existsSync(file)) return [];
  let text: string;
  try {
    text = readTextBoundedSync(file, { maxBytes: MAX_LABELS_BYTES, what: 'the labels file' });
  } catch (e) {
    if (!(e instanceof ReadRefused)) throw e;
    err(`${e.message}; labels not used\n`);
    return [];
  }
  const { labels, problems } = parseLabels(text);
  for (const p of problems) err(`${file}: ${p.field ? `${p.field}: ` : ''}${p.message}\n`);
  return labels;
}
