#!/usr/bin/env node
// Prints the VSIX's size and contents, and fails if anything but the production bundles,
// grammar, media and manifest got in (no node_modules, no sources, no tests).
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';

const vsix = process.argv[2];
const files = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).trim().split('\n');
const allowed =
  /^(\[Content_Types\]\.xml|extension\.vsixmanifest|extension\/(package\.json|readme\.md|README\.md|dist\/(extension|server|cli|cli-runner|webview)\.js|syntaxes\/.+|media\/.+))$/;
const stray = files.filter(f => !allowed.test(f));
console.log(`${vsix}: ${(statSync(vsix).size / 1024).toFixed(0)} KiB, ${files.length} files`);
for (const f of files) console.log(`  ${f}`);
if (stray.length) {
  console.error(`unexpected files in the VSIX:\n  ${stray.join('\n  ')}`);
  process.exit(1);
}
