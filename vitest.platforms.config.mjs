import { configDefaults, defineConfig } from 'vitest/config'
import { test } from './vitest.config.mjs'

// `npm run test:platforms` (scripts/test-platforms.sh): the platforms suite alone.
export default defineConfig({ test: { ...test, include: ['__test__/platforms.test.mjs'], exclude: configDefaults.exclude } })
