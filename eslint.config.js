// Lint with the type-aware rules that catch real bugs (floating promises, misused promises), not style.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // The typed client's .d.ts files are generated (npm run client:generate).
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/reports/', 'embed/dist/', 'clients/typescript/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Tests read JSON answers loosely; the app's own code may not.
  { files: ['test/**/*.ts', '**/*.test.ts', 'bench/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs', 'bin/**/*.js', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  // The layering rules (npm run lint runs depcruise with them): CommonJS, as dependency-cruiser reads it.
  { files: ['.dependency-cruiser.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
  // Code that runs in readers' and publishers' browsers.
  {
    files: ['embed/**/*.js', 'public/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', location: 'readonly', navigator: 'readonly', fetch: 'readonly', URL: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', console: 'readonly', CSSStyleSheet: 'readonly' },
    },
  },
  // The browser extension: its pages and its background worker (a service worker in Chromium).
  {
    files: ['extension/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { self: 'readonly', document: 'readonly', location: 'readonly', navigator: 'readonly', fetch: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', Intl: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', Map: 'readonly', importScripts: 'readonly' },
    },
  },
);
