// Flat ESLint config. @nx/enforce-module-boundaries enforces the layering of ARCHITECTURE §6:
// a domain lib never imports another domain's lib, contracts import no framework, and nothing
// deep-imports past a lib's index.ts.
import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/** Layering rules; specs (and only specs) may also use the testing lib. */
function boundaries(spec) {
  const t = (tags) => (spec ? [...tags, 'type:testing'] : tags);
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      allow: [],
      banTransitiveDependencies: false,
      depConstraints: [
        { sourceTag: 'type:app', onlyDependOnLibsWithTags: t(['type:domain', 'type:platform', 'type:contracts', 'type:util']) },
        { sourceTag: 'type:domain', onlyDependOnLibsWithTags: t(['type:platform', 'type:contracts', 'type:util']) },
        { sourceTag: 'type:platform', onlyDependOnLibsWithTags: t(['type:platform', 'type:contracts', 'type:util']) },
        {
          sourceTag: 'type:contracts',
          onlyDependOnLibsWithTags: ['type:contracts', 'type:util'],
          bannedExternalImports: ['@nestjs/*', 'mongoose', 'kafkajs', 'express', '@qdrant/*', 'hnswlib-node', '@seald-io/*'],
        },
        { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', 'type:util', 'type:domain'] },
        { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
        { sourceTag: 'scope:all', onlyDependOnLibsWithTags: ['*'] },
        ...services.map((s) => ({ sourceTag: `scope:${s}`, onlyDependOnLibsWithTags: [`scope:${s}`, 'scope:shared'] })),
      ],
    },
  ];
}

const services = ['gateway', 'flow-runtime', 'deployments', 'profiles', 'assistant', 'i18n', 'search', 'hub'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**', 'tools/kafka-mock/build/**', 'libs/client/dist/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { plugins: { '@nx': nx } },
  {
    files: ['**/*.ts', '**/*.tsx'],
    // Nest resolves constructor dependencies from decorator metadata: tell the type-import rule so it
    // never turns an injected class into an `import type` (which would erase it at runtime).
    languageOptions: { parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@nx/enforce-module-boundaries': boundaries(false),
    },
  },
  {
    files: ['**/*.spec.ts', 'tests/**/*.ts', 'bench/**/*.ts', 'tools/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off', '@nx/enforce-module-boundaries': boundaries(true) },
  },
);
