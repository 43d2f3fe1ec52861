// Lint rules; the one that matters most keeps 'vscode' out of the shared core and the server.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const noVscode = {
  'no-restricted-imports': [
    'error',
    { paths: [{ name: 'vscode', message: 'src/core and server/ must stay free of VS Code; use an adapter in src/vscode.' }] },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'media/**', '.vscode-test/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'smart'],
    },
  },
  { files: ['src/core/**/*.ts', 'server/**/*.ts'], rules: noVscode },
);
