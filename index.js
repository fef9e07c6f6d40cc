// Package entry of @deepseek-ai/dsh-tmux-context (native). It only loads the Rust binary, re-exports
// its `name`, `inject` and `apply`, and builds the schemastery `Config` that Cordis validates with.
import { createRequire } from 'node:module'
import z from '@deepseek-ai/schemastery'

const require = createRequire(import.meta.url)

/**
 * The napi-rs platform triples to try, best first. On Linux, gnu then musl: a binary for the
 * other libc fails to load and the next one is tried, so no libc probe (process.report costs ms).
 */
function platformTriples() {
  const { platform, arch } = process
  return platform === 'linux' ? [`linux-${arch}-gnu`, `linux-${arch}-musl`] : [`${platform}-${arch}`]
}

function loadNative() {
  const failures = []
  for (const triple of platformTriples()) {
    for (const candidate of [`./dsh-tmux-context.${triple}.node`, `@deepseek-ai/dsh-tmux-context-${triple}`]) {
      try {
        return require(candidate)
      } catch (error) {
        failures.push(`${candidate}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`)
      }
    }
  }
  throw new Error(
    `@deepseek-ai/dsh-tmux-context: no native binary for this platform (${platformTriples().join(' or ')}). ` +
      `Published binaries: linux-x64-gnu. To build from source: clone the repository, install Rust, ` +
      `then run \`npm install && npm run build\` there. Tried: ${failures.join('; ')}`,
  )
}

const native = loadNative()

/** Cordis plugin name: `'tmux-context'`. */
export const name = native.name
/** Services this plugin needs: `['agents']`. */
export const inject = native.inject
/** Register the prepended `agent/pre-step` listener; throws `TypeError` on invalid config. */
export const apply = native.apply
/** Schemastery validation for the config; the exact rules are checked by `apply`. */
export const Config = z.object({
  refreshIntervalMs: z
    .number()
    .description('Minimum ms between durable readings in one session; omit or 0 to inject on every change.'),
  queryTimeoutMs: z
    .number()
    .description('Bound on one tmux query, ms (default 5000); passed to the executor as timeoutMs.'),
})
