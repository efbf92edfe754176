// Lint of the TypeScript sources: typescript-eslint's recommended rules, and the layering of
// docs/ARCHITECTURE.md (core pure; app without vscode; only runner imports dockerode; only extension imports
// vscode; nothing outside ingest imports ingest/detectors; no import cycles). Cycles between core
// folders and unused exports are checked by scripts/lint.mjs (the latter with knip).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const NODE_BUILTINS = ['fs', 'path', 'os', 'child_process', 'crypto', 'net', 'http', 'https', 'stream', 'url', 'util', 'worker_threads', 'zlib'];
const restrict = (message, ...names) => ({ paths: names.map(name => ({ name, message })) });
const layers = ['./src/app', './src/runner', './src/extension', './src/cli', './src/server', './src/webview', './src/platform'];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-test/**',
      'dist-bench/**',
      'node_modules/**',
      'demo/**',
      'test-results/**',
      'test/fixtures/**',
      'test/fake-vllm/**',
      '.vscode-test/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      // Deliberate in this code base (dynamic JSON data, checked non-null lookups), each commented where it matters.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-control-regex': 'off',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './src/core', from: layers, message: 'core is pure: it imports nothing from the other layers (docs/ARCHITECTURE.md, Layers).' },
            {
              target: './src/app',
              from: ['./src/extension', './src/cli', './src/server', './src/webview'],
              message: 'app serves the front ends; it never imports them.',
            },
            { target: './src/runner', from: ['./src/app', './src/extension', './src/cli', './src/server', './src/webview'], message: 'runner sits under app.' },
            {
              target: ['./src/extension', './src/cli'],
              from: './src/runner',
              message: 'front ends reach the runner through app/ (and its types through core/run): they never import runner/.',
            },
            {
              target: './src/server',
              from: ['./src/app', './src/runner', './src/extension', './src/cli', './src/webview'],
              message: 'the language server is built on core only.',
            },
            {
              target: './src/webview',
              from: [...layers.filter(l => l !== './src/webview'), './src/core/ingest', './src/core/classify', './src/core/compare'],
              message: 'the webview gets its data by message (protocol.ts) and view types only.',
            },
            {
              target: [
                './src/app',
                './src/runner',
                './src/extension',
                './src/cli',
                './src/server',
                './src/platform',
                './src/core/classify',
                './src/core/compare',
                './src/core/logs',
                './src/core/metrics',
                './src/core/model',
                './src/core/patch',
                './src/core/perfcmd',
                './src/core/report',
                './test',
                './bench',
              ],
              from: './src/core/ingest/detectors',
              message: 'detectors are internal to ingest: import what core/ingest exports.',
            },
          ],
        },
      ],
    },
  },
  // Who may import vscode, dockerode and Node's built-ins (one block per layer).
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...restrict('core is pure: no I/O, no editor, no engine (docs/ARCHITECTURE.md, Layers).', 'vscode', 'dockerode', ...NODE_BUILTINS),
          patterns: [{ group: ['node:*'], message: 'core is pure: Node built-ins stay outside (pass what core needs in).' }],
        },
      ],
    },
  },
  {
    files: [
      'src/app/**/*.ts',
      'src/cli/**/*.ts',
      'src/server/**/*.ts',
      'src/platform/**/*.ts',
      'src/webview/**/*.ts',
      'bench/**/*.ts',
      'test/unit/**/*.ts',
      'test/support/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        restrict('only src/extension imports vscode, only src/runner imports dockerode (docs/ARCHITECTURE.md, Layers).', 'vscode', 'dockerode'),
      ],
    },
  },
  {
    files: ['src/runner/**/*.ts', 'test/docker/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', restrict('only src/extension imports vscode (docs/ARCHITECTURE.md, Layers).', 'vscode')] },
  },
  {
    files: ['src/extension/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', restrict('only src/runner talks to Docker (docs/ARCHITECTURE.md, Layers).', 'dockerode')] },
  },
);
