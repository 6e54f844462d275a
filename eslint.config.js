// Lint rules (`npm run lint`): ESLint's and typescript-eslint's recommended sets, plus the
// habits and walls of docs/architecture.md ("Rules the layout keeps"). Layout is Prettier's
// (`npm run format`; `npm run lint` checks it), so eslint-config-prettier turns off every rule
// that would argue with it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * The walls of docs/architecture.md, kept by the linter: each folder names what it may not import.
 * ESLint replaces a rule's options per matching block, so the folders below are disjoint and each
 * block lists everything its folder is refused.
 */
const databasePackages = ['knex', 'mysql2', 'better-sqlite3', 'ioredis'];
const httpPackages = ['koa', '@koa/router', 'koa-ratelimit', 'raw-body'];
const refuse = (message, packages, regexes = []) => [
  'error',
  {
    paths: packages.map((name) => ({ name, message })),
    patterns: [
      ...(packages.length > 0 ? [{ group: packages.map((name) => `${name}/*`), message }] : []),
      ...regexes.map(([regex, why]) => ({ regex, message: why })),
    ],
  },
];
/** Intake's files other than its front door, `services/events/index.ts` (docs/architecture.md). */
const intakeInternals = 'events/(?!index(\\.js)?$)';
const intakeWall = "Outside services/events/, use intake's front door: services/events/index.js.";
/** From a folder that is not services/: a path through `services/events/`. */
const outsideIntake = [`(^|/)services/${intakeInternals}`, intakeWall];
const servicesRefused =
  'Services hold the rules: no Koa (they never see ctx) and no Knex (queries live in repositories).';
const servicesRefusedRegexes = [
  ['/(http|middleware|routes)/', 'Services never see HTTP: move what you need into the service or shared/.'],
  // db/knex.ts only: transactions, and what an error is. Every other db/ file is rows or SQL.
  ['/db/(?!knex(\\.js)?$)', 'Services receive domain objects from repositories, never rows or SQL builders.'],
];
const walls = [
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse(
        'shared/ is loaded by the CLI without the daemon: no HTTP server, database or file system here.',
        [...httpPackages, ...databasePackages, 'fs', 'node:fs', 'fs/promises', 'node:fs/promises'],
        [['^(\\.\\./)+(server|cli|test|bench)(/|$)', 'shared/ imports neither server/ nor cli/.']],
      ),
    },
  },
  {
    files: ['server/services/**/*.ts', 'server/jobs/**/*.ts'],
    ignores: ['server/services/events/**'],
    rules: {
      'no-restricted-imports': refuse(
        servicesRefused,
        [...httpPackages, ...databasePackages],
        [...servicesRefusedRegexes, [`^(\\./|(\\.\\./)+)${intakeInternals}`, intakeWall], outsideIntake],
      ),
    },
  },
  {
    // Intake itself: the services' walls, and its own files are its own.
    files: ['server/services/events/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse(servicesRefused, [...httpPackages, ...databasePackages], servicesRefusedRegexes),
    },
  },
  {
    files: ['server/repositories/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse('Repositories hold queries only: no HTTP.', httpPackages, [
        ['/(services|http|middleware|routes)/', 'Repositories know no rules and no HTTP: they map rows to objects.'],
      ]),
    },
  },
  {
    files: ['server/routes/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse('Routes call one service: no database here.', databasePackages, [
        ['/(repositories|db)/', 'Routes call a service; queries live in repositories.'],
        outsideIntake,
      ]),
    },
  },
  {
    files: ['server/portal/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse(
        'The portal is HTTP: its pages call the portal service, never the database.',
        databasePackages.slice(0, 3),
        [
          // db/knex.ts only for what an error is (database unreachable: 503).
          ['/repositories/|/db/(?!knex(\\.js)?$)', 'Portal pages call services; queries live in repositories.'],
          ['/(routes|http)/', 'The portal is not the /v1 API: it shares services, not its routes.'],
          outsideIntake,
        ],
      ),
    },
  },
  {
    files: ['server/dashboard/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse(
        'The dashboard is HTTP: its pages call the dashboard service, never the database.',
        databasePackages.slice(0, 3),
        [
          // db/knex.ts only for what an error is (database unreachable: 503).
          ['/repositories/|/db/(?!knex(\\.js)?$)', 'Dashboard pages call services; queries live in repositories.'],
          ['/(routes|http)/', 'The dashboard is not the /v1 API: it shares services, not its routes.'],
          outsideIntake,
        ],
      ),
    },
  },
  {
    files: ['server/views/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse(
        'Views render what they are given: no HTTP, no database.',
        [...httpPackages, ...databasePackages],
        [
          [
            '/(services|repositories|db|http|middleware|routes|portal|dashboard)/',
            'Views know neither rules nor queries.',
          ],
        ],
      ),
    },
  },
  {
    files: ['server/middleware/**/*.ts', 'server/http/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse(
        'The HTTP layer reaches the database through services only.',
        databasePackages.slice(0, 3),
        [
          // db/knex.ts only for what an error is (database unreachable: 503).
          ['/repositories/|/db/(?!knex(\\.js)?$)', 'The HTTP layer calls services; queries live in repositories.'],
          outsideIntake,
        ],
      ),
    },
  },
  {
    // The daemon's own files (app.ts, main.ts…): services through their front doors.
    files: ['server/*.ts'],
    rules: { 'no-restricted-imports': refuse(intakeWall, [], [outsideIntake]) },
  },
  {
    files: ['server/db/migrations/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse(
        'A landed migration never changes: it imports no live code, only knex.',
        [...httpPackages, 'mysql2', 'better-sqlite3', 'ioredis'],
        [
          [
            '^\\.\\./',
            'A migration imports no live code (repositories, services, db helpers): write what it needs in the file.',
          ],
        ],
      ),
    },
  },
  {
    files: ['cli/**/*.ts'],
    rules: {
      'no-restricted-imports': refuse(
        'The CLI talks to the daemon over HTTP or to the services (operator commands): no Koa, no Knex.',
        [...httpPackages, 'knex', 'mysql2', 'better-sqlite3'],
        [
          [
            '/server/(http|middleware|routes|repositories)/',
            'The CLI reaches the database through server/services (cli/operator.ts).',
          ],
          outsideIntake,
        ],
      ),
    },
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'data/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports (docs/architecture.md).' },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // The tracking script runs in visitors' browsers, not in Node.
    files: ['server/sdk/**/*.js', 'server/views/assets/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        window: 'readonly',
        document: 'readonly',
        navigator: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        URLSearchParams: 'readonly',
        CustomEvent: 'readonly',
      },
    },
  },
  {
    // Tests read JSON answers loosely; product code may not.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...walls,
  prettier,
);
