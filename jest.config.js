const { readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

/**
 * Test files that never touch the test database (pure functions, or a CLI process on a SQLite file of
 * its own) say so with the marker below; the MariaDB pass (IDSERVER_TEST_DB_URL set) skips them, since
 * they would run the very same thing twice.
 */
const MARKER = '@database-independent';
/**
 * Browser end-to-end files (headless Chromium) say so with this marker: they drive pages whose
 * behaviour on each database the HTTP-level login tests pin in both passes, so the browser runs them
 * once, in the SQLite pass (a Chromium file costs ~45 s of two shared cores per pass).
 */
const BROWSER_MARKER = '@browser-once';

function databaseIndependent(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...databaseIndependent(path));
    else if (entry.name.endsWith('.test.ts')) {
      const text = readFileSync(path, 'utf8');
      if (text.includes(MARKER) || text.includes(BROWSER_MARKER)) out.push(path);
    }
  }
  return out;
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const skipped = process.env.IDSERVER_TEST_DB_URL
  ? databaseIndependent(join(__dirname, 'test')).map((p) => `<rootDir>/${escape(relative(__dirname, p))}$`)
  : [];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...skipped],
  setupFiles: ['reflect-metadata'],
  // A worker's first test server on MariaDB migrates its template database (ADR 21's many statements):
  // under load (the two CI passes side by side) a set-up hook took over 30 s (client-session-revoked).
  testTimeout: 60000,
  maxWorkers: 2,
  // A worker that has grown past this after a test file is replaced by a fresh one: under
  // --experimental-vm-modules each file's module graph stays reachable, the heaps reached 2.5 GB and
  // the suite spent its time collecting garbage. A fresh worker costs a second or two (transforms are cached).
  workerIdleMemoryLimit: '1GB',
};
