// Vitest global setup, once per pass: loads the package under test as the suites do, fails the pass
// when the build that loaded is not the one it built (__test__/build.mjs), and says which build it
// is (kind, version, platform, file, size and sha-256 prefix of the binary), on stdout and, beside
// the pass's JSON report (`--outputFile=X.json`), in X.build.json for scripts/vitest-summary.mjs.
import { createHash } from 'node:crypto'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { checkBuild, packageDir } from './build.mjs'

export default async function setup(project) {
  const plugin = await import(pathToFileURL(join(packageDir, 'index.js')).href)
  const build = checkBuild(plugin)
  // The WebAssembly package's loader is a few lines; its module is what was built.
  const binary = build.kind === 'WebAssembly' ? join(dirname(build.file), 'dsh-tmux-context.wasm32-wasi.wasm') : build.file
  const { size } = statSync(binary)
  const sha256 = createHash('sha256').update(readFileSync(binary)).digest('hex').slice(0, 12)
  const near = relative(process.cwd(), binary)
  const file = near.startsWith('..') || isAbsolute(near) ? binary : `./${near}`
  // The coverage pass (scripts/coverage.sh) runs a debug build instrumented for line counts: hence its size.
  const instrumented = process.env.TMUX_CONTEXT_V8_COVERAGE ? ', instrumented for coverage' : ''
  const said = `${build.kind} build ${build.version} (${build.platform}): ${file}, ${(size / 1e6).toFixed(2)} MB${instrumented}, sha256 ${sha256}…`
  console.log(`build under test: ${said}`)
  const out = project?.vitest?.config?.outputFile
  const report = typeof out === 'string' ? out : out?.json
  if (report?.endsWith('.json')) writeFileSync(report.replace(/\.json$/, '.build.json'), JSON.stringify({ ...build, binary: file, size, sha256, said }))
}
