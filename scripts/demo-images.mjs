#!/usr/bin/env node
// Gives the demo's fake host its images: the fake vLLM image (scripts/fake-image.mjs) tagged as the
// baseline image of every parent in the demo's dataset, except the parent of the "No vLLM wheel"
// commit (that one is built with Build Image on H100 from the demo checkout, which this also makes).
// Usage: node scripts/demo-images.mjs WORKSPACE   (the engine: DOCKER_HOST)
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { DEMO_CHECKOUT, makeDemoCheckout } from './demo-checkout.mjs';
import { FAKE_IMAGE } from './fake-image.mjs';

export async function demoImages(workspace, docker = new Docker()) {
  const { parent: buildable } = makeDemoCheckout(path.join(workspace, DEMO_CHECKOUT));
  const parents = new Set();
  const dir = path.join(workspace, 'dataset');
  for (const f of readdirSync(dir).filter(f => f.endsWith('.jsonl')))
    for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n'))
      if (line.trim()) {
        const p = JSON.parse(line).parent_commit;
        if (typeof p === 'string' && /^[0-9a-f]{12,40}$/.test(p) && p !== buildable) parents.add(p.slice(0, 12));
      }
  const image = docker.getImage(FAKE_IMAGE);
  for (const p of parents) await image.tag({ repo: 'bench-triage/fake-vllm', tag: `baseline-${p}` });
  // An earlier session's build of the buildable parent goes, so the demo shows the missing image again.
  await docker
    .getImage(`bench-triage/fake-vllm:baseline-${buildable.slice(0, 12)}`)
    .remove()
    .catch(() => {});
  return { tagged: parents.size, buildable };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ws = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../demo/workspace'));
  demoImages(ws).then(
    r => console.log(`demo images: the fake image tagged as ${r.tagged} baseline images; ${r.buildable.slice(0, 12)}'s is left to Build Image on H100`),
    e => {
      console.error(`demo-images: ${e.message}`);
      process.exit(1);
    },
  );
}
