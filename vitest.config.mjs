import { configDefaults, defineConfig } from 'vitest/config'

// `npx vitest run` (and `npm test`): every suite but the platforms one, which checks and runs the
// other platforms' builds and which `npm run test:platforms` runs (vitest.platforms.config.mjs).
export const test = {
  include: ['__test__/**/*.test.mjs'],
  exclude: [...configDefaults.exclude, '__test__/platforms.test.mjs'],
  setupFiles: ['__test__/setup.mjs'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
}

export default defineConfig({ test })
