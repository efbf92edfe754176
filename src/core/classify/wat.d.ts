/** A `.wat` file, assembled at build time (scripts/esbuild-wat.mjs): the module's bytes. */
declare module '*.wat' {
  const bytes: Uint8Array<ArrayBuffer>;
  export default bytes;
}
