// End-to-end tests against a REAL `marginalia serve`: embedded PostgreSQL in a throwaway
// MARGINALIA_HOME, on a free port, Debian's chromium (Playwright's own download is not
// reachable here). The home is made and removed by scripts/e2e.sh.
import { defineConfig, devices } from '@playwright/test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')

function freePort(): string {
  return execFileSync('python3', ['-c', 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'], {
    encoding: 'utf8',
  }).trim()
}

// Computed once in the runner; workers inherit the environment.
process.env.E2E_PORT ||= freePort()
process.env.E2E_HOME ||= mkdtempSync(path.join(tmpdir(), 'marginalia-e2e-'))
// A port nothing listens on: arXiv and OpenAlex are "unreachable" at once (no network here),
// and the research test reads the shared ACL catalog as its local source.
process.env.E2E_CLOSED_PORT ||= freePort()
// A second server in accounts mode (issue 18) with one user, for the sign-in test.
process.env.E2E_ACCOUNTS_PORT ||= freePort()
process.env.E2E_ACCOUNTS_HOME ||= mkdtempSync(path.join(tmpdir(), 'marginalia-e2e-accounts-'))
export const ACCOUNTS_USER = { email: 'reader@example.org', password: 'a long enough password' }
const closed = `http://127.0.0.1:${process.env.E2E_CLOSED_PORT}`
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export default defineConfig({
  testDir: './e2e',
  // Screenshots and timings run only on demand (make web-bench).
  testIgnore: process.env.E2E_EXTRAS
    ? []
    : ['**/extras.spec.ts', '**/reader-shots.spec.ts', '**/tables-shots.spec.ts', '**/text-reader-shots.spec.ts'],
  timeout: 240_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: './test-results',
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: chromiumArgs },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 800 } } }],
  webServer: [{
    command: `uv run --frozen marginalia serve --host 127.0.0.1 --port ${process.env.E2E_PORT}`,
    cwd: root,
    url: `${baseURL}/api/health`,
    // The first start creates the database and assembles the embedding model.
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      MARGINALIA_HOME: process.env.E2E_HOME,
      MARGINALIA_LLM__PROVIDER: 'offline',
      MARGINALIA_CATALOG_PATH: path.join(root, '..', 'shared', 'data', 'catalog', 'acl2020', 'papers.jsonl'),
      MARGINALIA_SOURCES__ARXIV_BASE_URL: `${closed}/api/query`,
      MARGINALIA_SOURCES__OPENALEX_BASE_URL: closed,
      MARGINALIA_SOURCES__MAX_RETRIES: '0',
    },
    gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
  }, {
    command:
      `printf '%s\\n' "$E2E_PASSWORD" | uv run --frozen marginalia user add ${ACCOUNTS_USER.email} --password-stdin && ` +
      `exec uv run --frozen marginalia serve --host 127.0.0.1 --port ${process.env.E2E_ACCOUNTS_PORT}`,
    cwd: root,
    url: `http://127.0.0.1:${process.env.E2E_ACCOUNTS_PORT}/api/health`,
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      MARGINALIA_HOME: process.env.E2E_ACCOUNTS_HOME,
      MARGINALIA_AUTH__MODE: 'accounts',
      MARGINALIA_LLM__PROVIDER: 'offline',
      E2E_PASSWORD: ACCOUNTS_USER.password,
    },
    gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
  }],
})
