import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'

// `npx vitest run` (and `npm test`): every suite but the platforms one, which checks and runs the
// other platforms' builds and which `npm run test:platforms` runs (vitest.platforms.config.mjs).
export const test = {
  include: ['__test__/**/*.test.mjs'],
  exclude: [...configDefaults.exclude, '__test__/platforms.test.mjs'],
  setupFiles: ['__test__/setup.mjs'],
  // Once per pass: the build under test is the one this pass built, and which it is (issue 39).
  globalSetup: ['__test__/global-setup.mjs'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
  // At least two suites at a time, also on two cores (vitest's default there is one): most of their
  // time is spent waiting on child processes (tmux servers, the dsh CLI, npm), not on the CPU. On two
  // cores this halves the suites' run (measured: 117 s to 63 s; instrumented, 154 s to 74-84 s).
  maxWorkers: Math.max(2, availableParallelism() - 1),
}

export default defineConfig({ test })
