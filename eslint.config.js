import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.infra/', 'bench/results/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { varsIgnorePattern: '^_', argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The console's browser pages (services/console/web/): ES modules that import Leaflet and Chart.js by package
    // name; services/console/web-bundle.ts bundles each page's modules into one file with esbuild.
    files: ['services/console/web/**/*.js'],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          ...[
            'window',
            'document',
            'location',
            'history',
            'navigator',
            'console',
            'fetch',
            'URL',
            'URLSearchParams',
            'performance',
          ],
          ...['setTimeout', 'clearTimeout', 'getComputedStyle', 'confirm', 'DOMParser', 'Node', 'Intl'],
        ].map((name) => [name, 'readonly']),
      ),
    },
    rules: {
      'no-undef': 'error',
      'max-lines': ['error', { max: 250, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Pure logic: no infrastructure, no I/O. Time and data come in as parameters.
    files: ['services/*/domain/**/*.ts', 'shared/*/domain/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'kafkajs',
            'cassandra-driver',
            'winston',
            'koa',
            '@koa/*',
            'node:*',
            '**/shared/kafka/**',
            '**/shared/cassandra/**',
          ],
        },
      ],
    },
  },
  {
    // Tests read HTTP answers as loosely typed JSON.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Every error raised on purpose says what it is (code, status, retriable): shared/errors/app-error.ts.
    files: ['services/**/*.ts', 'shared/**/*.ts'],
    ignores: ['**/*.test.ts', '**/main.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ThrowStatement > NewExpression[callee.name='Error']",
          message: 'Throw an AppError subclass from shared/errors.',
        },
      ],
    },
  },
);
