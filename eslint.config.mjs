// @ts-check
import tseslint from 'typescript-eslint';

/** Only the VS Code adapter layer may import 'vscode' (see CONTRIBUTING.md, "Layers"). */
const noVscodeImport = {
  'no-restricted-imports': [
    'error',
    {
      paths: [{ name: 'vscode', message: "Only src/vscode/, src/extension.ts and src/core.ts may import 'vscode'. Put this logic in a plain module and adapt it in src/vscode/." }],
    },
  ],
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.cache/**', '.vscode-test/**', 'test-results/**', '.scratch/**', 'demo/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      ...noVscodeImport,
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': ['error', { selector: "ImportExpression[source.value='vscode']", message: "Only src/vscode/ may import 'vscode'." }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    // Every `switch` over a union names each member and ends in a never-check (`assertNever`), not a
    // `default`: a new message type, verb, state or entry kind fails the type-check where it is not handled.
    // A `default` is for a switch over an open type (a string, a number) only, and there it is required.
    // Needs type information, so it reads both TypeScript projects.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    languageOptions: { parserOptions: { project: ['./tsconfig.json', './tsconfig.webview.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { allowDefaultCaseForExhaustiveSwitch: false, considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: true },
      ],
    },
  },
  {
    files: ['src/vscode/**/*.ts', 'src/extension.ts', 'src/core.ts', 'test/integration/**/*.ts'],
    rules: { 'no-restricted-imports': 'off', 'no-restricted-syntax': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
