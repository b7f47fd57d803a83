import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.infra/', 'bench/results/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Pure logic: no infrastructure, no I/O. Time and data come in as parameters.
    files: ['services/*/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['kafkajs', 'cassandra-driver', 'winston', 'koa', '@koa/*', 'node:*', '**/shared/kafka/**', '**/shared/cassandra/**'] },
      ],
    },
  },
  {
    files: ['services/**/*.ts'],
    ignores: ['**/*.test.ts', '**/main.ts'],
    rules: {
      'no-restricted-syntax': ['error', { selector: "ThrowStatement > NewExpression[callee.name='Error']", message: 'Throw an AppError subclass from shared/errors.' }],
    },
  },
);
