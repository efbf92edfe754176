// Text assets bundled by esbuild (loader `.py: text`).
declare module '*.py' {
  const text: string;
  export default text;
}
