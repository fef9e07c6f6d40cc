// Which build a test pass runs, and whether it is the one this pass built (issue 39): a copy of the
// binary package installed in a folder above the checkout, or a stale tarball's, must not stand in
// for it unnoticed. The package under test is this checkout, or the folder TMUX_CONTEXT_PACKAGE names
// (scripts/test.sh's WebAssembly pass); its build must load from that folder itself (a native build:
// the .node beside index.js), or, with NAPI_RS_FORCE_WASI, from the WebAssembly package beside it;
// TMUX_CONTEXT_EXPECT_BUILD names the exact file instead. What loaded is read from the debug line the
// plugin logs at load, as a user reads it.
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The package folder under test. */
export const packageDir = resolve(process.env.TMUX_CONTEXT_PACKAGE ?? root)

/** `{ kind, version, platform, file }` of the build `plugin` loaded, from its debug line at load; `{ line }` where none is named. */
export function loadedBuild(plugin) {
  const lines = []
  plugin.apply({ on() {}, logger: { debug: (l) => lines.push(l), warn: (l) => lines.push(l) } }, {})
  const named = lines.map((l) => l.match(/^tmux-context: (native|WebAssembly) build (\S+) \((\S+)\) loaded from (.+)$/)).find(Boolean)
  if (!named) return { line: lines.join(' | ') || 'no line at load' }
  const [, kind, version, platform, dir] = named
  return { kind, version, platform, file: join(dir, kind === 'WebAssembly' ? 'dsh-tmux-context.wasi.cjs' : `dsh-tmux-context.${platform}.node`) }
}

/** Where this pass's build must load from: `{ file }` or `{ dir }`. */
export function expectedBuild() {
  if (process.env.TMUX_CONTEXT_EXPECT_BUILD) return { file: resolve(process.env.TMUX_CONTEXT_EXPECT_BUILD) }
  return { dir: process.env.NAPI_RS_FORCE_WASI ? `${packageDir}-wasm32-wasi` : packageDir }
}

/** The build `plugin` loaded; throws, naming both, unless it is the one expected. */
export function checkBuild(plugin) {
  const loaded = loadedBuild(plugin)
  const expected = expectedBuild()
  const ok = loaded.file !== undefined && (expected.file !== undefined ? loaded.file === expected.file : dirname(loaded.file) === expected.dir)
  if (!ok) {
    throw new Error(
      `the build under test is not the one this pass built: ${loaded.file ? `${loaded.kind} build ${loaded.file} loaded` : `none loaded (${loaded.line})`}, ` +
        `where ${expected.file ?? `a build in ${expected.dir}`} was expected. Run \`npm run build\` (a checkout loads the .node beside index.js first), ` +
        'or unset TMUX_CONTEXT_PACKAGE, TMUX_CONTEXT_EXPECT_BUILD and the NAPI_RS_ variables.',
    )
  }
  return loaded
}
