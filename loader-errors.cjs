// Why no build loaded, worded for the user: index.js reads this file only when binding.cjs failed.
'use strict'

const CPU = { x86_64: 'x64', aarch64: 'arm64', armv7: 'arm', riscv64gc: 'riscv64' }

/** napi-rs's platform name of a Rust target triple: `x86_64-unknown-linux-gnu` -> `linux-x64-gnu`. */
function platformOf(triple) {
  const parts = triple.split('-')
  const cpu = CPU[parts[0]] ?? parts[0]
  if (parts.includes('darwin')) return `darwin-${cpu}`
  if (parts.includes('windows')) return `win32-${cpu}-${parts.at(-1)}`
  if (parts.includes('linux')) return `linux-${cpu}-${parts.at(-1)}`
  return `${parts.at(-1)}-${cpu}`
}

/**
 * What binding.cjs's failure means: an installed build that does not load (`broken`, an error to
 * throw: the install needs fixing), or no build that can load here (`unavailable`, the warning at
 * apply). Each of binding.cjs's tries is a `cause` in the chain, the last tried outermost.
 */
function classify(error, { name: pkg, napi }) {
  const tried = []
  for (let e = error.cause; e != null && tried.length < 64; e = e.cause) tried.unshift(String(e instanceof Error ? e.message : e).split('\n')[0])
  const { NAPI_RS_NATIVE_LIBRARY_PATH: path, NAPI_RS_FORCE_WASI: wasi } = process.env
  if (path) return { broken: new Error(`${pkg}: NAPI_RS_NATIVE_LIBRARY_PATH is set to ${path}, which does not load (${tried[0]}); unset it, or point it at this package's binary`, { cause: error }) }
  const missing = new RegExp(`^Cannot find module '(?:\\./${napi.binaryName}\\.([^']+)\\.node|\\./${napi.binaryName}\\.wasi\\.cjs|${pkg}-([^'/]+))'`)
  // The native tries come first, then the WebAssembly ones.
  const wasmAt = tried.findIndex((m) => m.includes(`${napi.binaryName}.wasi.cjs`) || m.includes(`${pkg}-wasm32-wasi`) || m.startsWith('WASI binding'))
  const [native, wasm] = wasmAt < 0 ? [tried, []] : [tried.slice(0, wasmAt), tried.slice(wasmAt)]
  const failed = (m) => !missing.test(m) && !/^(Unsupported |Cannot find native binding|WASI binding not found)/.test(m)
  const host = native.map((m) => m.match(missing)).find(Boolean)?.slice(1).find(Boolean) ?? `${process.platform}-${process.arch}`
  const broken = native.find(failed)
  if (broken !== undefined) return { broken: new Error(`${pkg}: the native binary for ${host} is installed but failed to load: ${broken}`, { cause: error }) }
  const wasmFailure = wasm.find(failed)
  const wasmState = wasmFailure === undefined ? 'is not installed' : `cannot run here: ${wasmFailure}`
  const inactive = 'The plugin is inactive: every pre-step passes through without a reading.'
  const wasmInstall = `the WebAssembly package (\`npm install --force ${pkg}-wasm32-wasi\`, as npm refuses a package of another cpu otherwise; or the tarballs of \`npm run tarballs\`)`
  if (wasi === 'error') return { unavailable: `NAPI_RS_FORCE_WASI=error asks for the WebAssembly package only, and it ${wasmState}. ${inactive} Unset NAPI_RS_FORCE_WASI, or install ${wasmInstall}.` }
  const built = napi.targets.filter((t) => !t.startsWith('wasm32')).map(platformOf)
  const why = built.includes(host)
    ? `the binary package ${pkg}-${host} is not installed`
    : `there is no native binary for this platform (${host}); binaries are built for: ${built.join(', ')}`
  const wasmWords = wasmFailure === undefined ? 'nor is the WebAssembly package' : `and the WebAssembly package cannot run here: ${wasmFailure}`
  const binaryPackage = built.includes(host) ? `the binary package (\`npm install ${pkg}-${host}\`) or ` : ''
  return {
    unavailable:
      `${why}, ${wasmWords}. ${inactive} To read tmux, install ${binaryPackage}${wasmInstall}, or build from source. To build from source: ` +
      'add the Rust target triple of this platform to "napi.targets" in package.json, then `npm run build && npm run pack` (README, "Build from source").',
  }
}

module.exports = { classify }
