// Adds lock entries for native-binding packages of other platforms (android, darwin, win32 …).
// Why: the registry this project installs from lacks many of them, so `npm install` drops them
// from package-lock.json, and then `npm ci` refuses the lock ("Missing: … from lock file").
// An entry with os/cpu set is skipped by `npm ci` on a non-matching platform without a download.
// Run after any dependency change: `npm run lock:bindings`.
import fs from 'node:fs';

const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const packages = lock.packages;

function platformOf(suffix) {
  const [os, cpu, abi = ''] = suffix.split('-');
  const entry = { os: [os], cpu: [cpu] };
  if (abi.includes('gnu')) entry.libc = ['glibc'];
  if (abi.includes('musl')) entry.libc = ['musl'];
  return entry;
}

let added = 0;
for (const pkg of Object.values(packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const at = `node_modules/${dep}`;
    const binding = /binding-(.+)$/.exec(dep);
    if (packages[at] || !binding) continue;
    packages[at] = { version, dev: pkg.dev, optional: true, ...platformOf(binding[1]) };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
fs.writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log(`lock: ${added} platform binding entries added`);
