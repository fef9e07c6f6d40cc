// Package entry of @deepseek-ai/dsh-tmux-context (native). It loads the Rust binary through the
// loader that `napi build` generates (binding.cjs: this platform's `.node` file beside it, else the
// binary package `@deepseek-ai/dsh-tmux-context-<platform>`), re-exports its `name`, `inject` and
// `apply`, and builds the schemastery `Config` that Cordis validates with.
import { createRequire } from 'node:module'
import { basename, dirname } from 'node:path'
import z from '@deepseek-ai/schemastery'

const require = createRequire(import.meta.url)

// ---- loader (platform packages and their errors) ----
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const BUILD_FROM_SOURCE =
  'To build from source: in a clone of the repository, with Rust and Node installed, add the Rust target triple ' +
  'of this platform to "napi.targets" in package.json, then run `npm ci && npm run build && npm run pack` ' +
  'and install the two tarballs from .tmp/packs/ (see "Build from source" in the README).'

const CPU = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm', riscv64gc: 'riscv64', powerpc64le: 'ppc64', loongarch64: 'loong64' }

/** napi-rs's platform name of a Rust target triple: `x86_64-unknown-linux-gnu` -> `linux-x64-gnu`. */
function platformOf(triple) {
  const parts = triple.split('.')[0].split('-')
  const cpu = CPU[parts[0]] ?? parts[0]
  if (parts.includes('darwin')) return `darwin-${cpu}`
  if (parts.includes('windows')) return `win32-${cpu}-${parts.at(-1)}`
  if (parts.includes('linux')) return `linux-${cpu}-${parts.at(-1)}`
  return `${parts.at(-1)}-${cpu}`
}

/** The messages of an error and of its `cause` chain, outermost first (binding.cjs chains its errors last tried outermost). */
function messages(error) {
  const out = []
  for (let e = error, n = 0; e != null && n < 64; e = e.cause, n++) out.push(e instanceof Error ? e.message : String(e))
  return out
}

/**
 * The error to throw when binding.cjs found no binary it could load, one message per kind:
 * the binary package is not installed; it is installed but failed to load; this platform has none.
 */
function loadError(error, { name: PACKAGE, napi = {} }) {
  const built = (napi.targets ?? []).map(platformOf)
  const binary = escape(napi.binaryName)
  const pkg = escape(PACKAGE)
  // What binding.cjs tried, first tried last in the chain: `./dsh-tmux-context.<platform>.node`,
  // then the binary package, then the WebAssembly fallback (which this package does not build).
  const tried = messages(error.cause).reverse()
  const missing = new RegExp(`^Cannot find module '(?:\\./${binary}\\.([^']+)\\.node|${pkg}-([^'/]+))'`)
  const wasi = new RegExp(`^Cannot find module '(?:\\./${binary}\\.wasi[^']*|${pkg}-wasm32-wasi[^']*)'`)
  const native = tried.filter((m) => !wasi.test(m))
  const platforms = native.map((m) => m.match(missing)).filter(Boolean).map((m) => m[1] ?? m[2])
  const failures = native.filter((m) => !missing.test(m) && !m.startsWith('Unsupported ') && !m.startsWith('Cannot find native binding'))
  const { platform, arch } = process
  const host = platforms[0] ?? `${platform}-${arch}`
  const options = { cause: error }
  if (failures.length > 0) {
    return new Error(
      `${PACKAGE}: the native binary for ${host} is installed but failed to load: ${failures[0].split('\n')[0]}`,
      options,
    )
  }
  if (!built.includes(host)) {
    return new Error(
      `${PACKAGE}: no native binary for this platform (${host}). Binaries are built for: ${built.join(', ')}. ` +
        BUILD_FROM_SOURCE,
      options,
    )
  }
  return new Error(
    `${PACKAGE}: the binary package ${PACKAGE}-${host} is not installed (npm installs only the optional ` +
      `dependency for the platform it runs on, and skips one it cannot fetch). Install it next to this package: ` +
      `\`npm install ${PACKAGE}-${host}\`, or both tarballs from \`npm run tarballs\` in the repository.`,
    options,
  )
}

function loadNative() {
  try {
    return require('./binding.cjs')
  } catch (error) {
    // The package name, the binary name and the platform list: package.json, where they are written.
    const manifest = require('./package.json')
    if (error?.code === 'MODULE_NOT_FOUND' && String(error.message).includes('binding.cjs')) {
      throw new Error(`${manifest.name}: binding.cjs is missing: this is a source checkout that was not built; run \`npm run build\`.`, { cause: error })
    }
    throw loadError(error, manifest)
  }
}
// ---- end of loader ----

const native = loadNative()

/** Cordis plugin name: `'tmux-context'`. */
export const name = native.name
/** Services this plugin needs: `['agents']`. */
export const inject = native.inject
/**
 * The debug line at load that tells which implementation is mounted: this native build, its
 * version and platform, and the directory of the binary that loaded (made once, on first use).
 */
let loadedMessage
function loaded() {
  if (loadedMessage === undefined) {
    // The binary is the module whose exports binding.cjs handed back: `<binaryName>.<platform>.node`.
    const file = Object.values(require.cache).find((m) => m?.exports === native && m.filename.endsWith('.node'))?.filename
    const platform = file ? basename(file).split('.').slice(1, -1).join('.') : 'unknown platform'
    const { version } = native
    loadedMessage = `tmux-context: native build ${version} (${platform}) loaded from ${file ? dirname(file) : 'an unknown place'}`
  }
  return loadedMessage
}

/**
 * Register the prepended `agent/pre-step` listener for the lifetime of `ctx` (synchronous, returns
 * `undefined`); throws `TypeError` on invalid config. Logs one `ctx.logger.debug` line naming the
 * native build, its version, platform and binary directory.
 */
export function apply(ctx, config) {
  native.apply(ctx, config)
  try {
    ctx.logger?.debug?.(loaded())
  } catch {
    // A logger that throws costs nothing but the line.
  }
}
/** Schemastery validation for the config; the exact rules are checked by `apply`. */
export const Config = z.object({
  refreshIntervalMs: z
    .number()
    .description('Minimum ms between durable readings in one session; omit or 0 to inject on every change.'),
  queryTimeoutMs: z
    .number()
    .description('Bound on one tmux query, ms (default 5000); passed to the executor as timeoutMs.'),
})
