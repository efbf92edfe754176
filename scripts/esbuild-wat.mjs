// esbuild plugin: a `.wat` import is assembled to WebAssembly (wabt) and bundled as its bytes
// (a Uint8Array), so the text is the only source and no binary is kept in the repository.
import { readFile } from 'node:fs/promises';
import wabtInit from 'wabt';

let wabt = null;
export const watPlugin = {
  name: 'wat',
  setup(build) {
    build.onLoad({ filter: /\.wat$/ }, async args => {
      wabt ??= await wabtInit();
      const mod = wabt.parseWat(args.path, await readFile(args.path, 'utf8'));
      try {
        mod.validate();
        return { contents: mod.toBinary({}).buffer, loader: 'binary' };
      } finally {
        mod.destroy();
      }
    });
  },
};
