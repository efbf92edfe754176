// esbuild plugin: a `.wat` import is assembled to WebAssembly (wabt) and bundled as its bytes
// (a Uint8Array, whatever the bundle's target), so the text is the only source and no binary is
// kept in the repository.
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
        // Decoded by the module itself (atob: Node 16+, browsers): esbuild's binary loader would emit
        // Uint8Array.fromBase64 for targets that have it, which Node 20 does not.
        const b64 = Buffer.from(mod.toBinary({}).buffer).toString('base64');
        return { contents: `export default Uint8Array.from(atob(${JSON.stringify(b64)}), c => c.charCodeAt(0));\n`, loader: 'js' };
      } finally {
        mod.destroy();
      }
    });
  },
};
