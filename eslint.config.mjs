import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

// The console's import direction (as bulletproof-react's zones): shared code imports no feature and not
// the app that composes them, and a feature imports no other feature. What two features both need moves
// to a shared folder.
const consoleFeatures = ['sessions', 'memory', 'routing', 'organizations', 'share-page'];
const consoleApp = ['console/src/App.tsx', 'console/src/main.tsx', 'console/src/shell'];
const consoleShared = ['console/src/api', 'console/src/components', 'console/src/conversation', 'console/src/hooks', 'console/src/lib'];
const consoleZones = [
  ...consoleFeatures.map((feature) => ({
    target: `console/src/${feature}`,
    from: consoleFeatures.filter((other) => other !== feature).map((other) => `console/src/${other}`),
    message: 'A console feature imports no other feature: move what both use to a shared folder.',
  })),
  {
    target: consoleFeatures.map((feature) => `console/src/${feature}`),
    from: consoleApp,
    message: 'A console feature does not import the app that composes it.',
  },
  {
    target: consoleShared,
    from: [...consoleFeatures.map((feature) => `console/src/${feature}`), ...consoleApp],
    message: 'Shared console code imports neither a feature nor the app.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'console/dist/**', 'console/src/api/schema.d.ts', 'node_modules/**', 'bench/reference/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/require-await': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Tests and decorators work with loosely typed JSON from the wire.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['console/src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.d.ts', '.js'] })] },
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: consoleZones }] },
  },
);
