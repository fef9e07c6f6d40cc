// Package entry of @deepseek-ai/dsh-tmux-context (native). It only loads the Rust binary, re-exports
// its `name`, `inject` and `apply`, and builds the schemastery `Config` that Cordis validates with.
import { createRequire } from 'node:module'
import z from '@deepseek-ai/schemastery'

const require = createRequire(import.meta.url)

/** Platforms with a published binary package `@deepseek-ai/dsh-tmux-context-<triple>`. */
const PUBLISHED = ['linux-x64-gnu']

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
  // Only now, on failure, is the libc worth asking for (process.report costs milliseconds).
  const libc = process.platform === 'linux' ? (process.report?.getReport?.()?.header?.glibcVersionRuntime ? 'gnu' : 'musl') : undefined
  const triples = libc ? [`linux-${process.arch}-${libc}`] : platformTriples()
  const published = triples.find((t) => PUBLISHED.includes(t))
  throw new Error(
    published
      ? `@deepseek-ai/dsh-tmux-context: the binary package @deepseek-ai/dsh-tmux-context-${published} is not installed ` +
          `(npm skips an optional dependency it cannot fetch). Install it next to this package, e.g. both tarballs ` +
          `from \`npm run tarballs\` in the repository. Tried: ${failures.join('; ')}`
      : `@deepseek-ai/dsh-tmux-context: no native binary for this platform (${triples.join(' or ')}). ` +
          `Published binaries: ${PUBLISHED.join(', ')}. To build from source: in a clone of the repository, with Rust ` +
          `installed, run \`npm install && npm run build && npm run tarballs\`, then install both tarballs from .tmp/packs/. ` +
          `Tried: ${failures.join('; ')}`,
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
