// ESLint (flat config) with typescript-eslint's recommended rules.
// Biome was the first choice, but its platform binaries are not on our registry mirror, which breaks `npm ci`.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import boundaries from './scripts/lint/boundaries.js'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '**/fixtures/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { boundaries },
    rules: {
      'boundaries/imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-control-regex': 'off',
    },
  },
  // The household page's script runs in the browser, as an ES module.
  { files: ['core/household-page/assets/**/*.js'], languageOptions: { globals: { ...globals.browser }, sourceType: 'module' } },
)
