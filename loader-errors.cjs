// Why no native build loaded, worded for the user: index.js reads this file only when binding.cjs
// failed (it costs every import about 0.07 ms to compile otherwise).
'use strict'

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
 * What binding.cjs's failure means, one kind each: a binary that is installed but failed to load
 * (`broken`: an error to throw, the install needs fixing); or no build that can load here
 * (`unavailable`: a sentence for the warning at apply): the binary package is not installed, this
 * platform has no native binary, or the WebAssembly package is missing or cannot run (a Node without
 * WASI).
 */
function classify(error, { name: PACKAGE, napi = {} }) {
  const built = (napi.targets ?? []).filter((t) => !t.startsWith('wasm32')).map(platformOf)
  const binary = escape(napi.binaryName)
  const pkg = escape(PACKAGE)
  // What binding.cjs tried, in order: `./dsh-tmux-context.<platform>.node`, the binary package,
  // then `./dsh-tmux-context.wasi.cjs` and the WebAssembly package (the chain holds the last tried
  // outermost).
  const tried = messages(error.cause).reverse()
  const missing = new RegExp(`^Cannot find module '(?:\\./${binary}\\.([^']+)\\.node|\\./${binary}\\.wasi\\.cjs|${pkg}-([^'/]+))'`)
  const firstWasm = tried.findIndex((m) => m.startsWith(`Cannot find module './${napi.binaryName}.wasi.cjs'`) || m.includes(`${PACKAGE}-wasm32-wasi`))
  const [native, wasm] = firstWasm < 0 ? [tried, []] : [tried.slice(0, firstWasm), tried.slice(firstWasm)]
  const failed = (m) => !missing.test(m) && !m.startsWith('Unsupported ') && !m.startsWith('Cannot find native binding')
  const platforms = native.map((m) => m.match(missing)).filter(Boolean).map((m) => m[1] ?? m[2])
  const { platform, arch } = process
  const host = platforms[0] ?? `${platform}-${arch}`
  const broken = native.find(failed)
  if (broken !== undefined) {
    const message = `${PACKAGE}: the native binary for ${host} is installed but failed to load: ${broken.split('\n')[0]}`
    return { broken: new Error(message, { cause: error }) }
  }
  const why = built.includes(host)
    ? `the binary package ${PACKAGE}-${host} is not installed`
    : `there is no native binary for this platform (${host}); binaries are built for: ${built.join(', ')}`
  const wasmFailure = wasm.find(failed)
  const wasmState = wasmFailure === undefined
    ? 'nor is the WebAssembly package'
    : `and the WebAssembly package cannot run here: ${wasmFailure.split('\n')[0]}`
  const binaryPackage = built.includes(host) ? `the binary package (\`npm install ${PACKAGE}-${host}\`) or ` : ''
  return {
    unavailable:
      `${why}, ${wasmState}. The plugin is inactive: every pre-step passes through without a reading. ` +
      `To read tmux, install ${binaryPackage}the WebAssembly package (\`npm install --force ${PACKAGE}-wasm32-wasi\`, as npm refuses a package of another cpu otherwise; ` +
      `or the tarballs of \`npm run tarballs\`), or build from source. ${BUILD_FROM_SOURCE}`,
  }
}


module.exports = { classify }
