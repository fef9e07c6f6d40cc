// Row 3: package import + apply time and the RSS it adds, one fresh node process per sample
// (bench/import-child.mjs), alternating native/JS. Both packages are imported by name from one
// consumer folder (.tmp/bench-consumer/), each installed there as npm lays a package out: this
// package as its tarball holds it, with this machine's binary package beside it in the
// `@deepseek-ai` folder, and the JS package as installed in this checkout; the harness packages
// are linked from this checkout for both.
import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { NODE_FILE, REFERENCE, root, summary } from './lib.mjs'

/** The consumer folder, made once a run: both packages installed, and bench/import-child.mjs and bench/resume-child.mjs. Returns the first child's path. */
let made
function consumer() {
  made ??= makeConsumer()
  return made
}

function makeConsumer() {
  const dir = join(root, '.tmp', 'bench-consumer')
  rmSync(dir, { recursive: true, force: true })
  const modules = join(dir, 'node_modules')
  const scope = join(modules, '@deepseek-ai')
  // This package: the files its package.json packs (the tarball's content), from this tree.
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const own = join(scope, 'dsh-tmux-context')
  mkdirSync(own, { recursive: true })
  for (const file of ['package.json', ...manifest.files]) copyFileSync(join(root, file), join(own, file))
  // This machine's binary package, as `npm/<platform>/` and the build make it.
  const platform = NODE_FILE.split('.').slice(1, -1).join('.')
  const binary = join(scope, `dsh-tmux-context-${platform}`)
  mkdirSync(binary)
  copyFileSync(join(root, 'npm', platform, 'package.json'), join(binary, 'package.json'))
  copyFileSync(join(root, NODE_FILE), join(binary, NODE_FILE))
  // The JS package, as installed here (a copy, as npm installs it), unless a baseline build is compared.
  if (!process.env.BENCH_REFERENCE) cpSync(join(root, 'node_modules', REFERENCE), join(modules, REFERENCE), { recursive: true })
  for (const name of ['schemastery', 'cordis', 'dsh-agent', 'dsh-session', 'dsh-shell']) symlinkSync(join(root, 'node_modules', '@deepseek-ai', name), join(scope, name))
  symlinkSync(join(root, 'node_modules', 'fastest-levenshtein'), join(scope, '..', 'fastest-levenshtein'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-consumer', private: true, type: 'module' }))
  for (const file of ['import-child.mjs', 'resume-child.mjs']) copyFileSync(fileURLToPath(new URL(`./${file}`, import.meta.url)), join(dir, file))
  return join(dir, 'import-child.mjs')
}

export function importCost({ samples = 20 } = {}) {
  const child = consumer()
  const out = { native: [], js: [] }
  const run = (impl) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', child, impl], { encoding: 'utf8' }).trim().split('\n').pop())
  run('native') // page cache warm-up of both packages (not recorded)
  run('js')
  for (let i = 0; i < samples; i++) for (const impl of i % 2 ? ['js', 'native'] : ['native', 'js']) out[impl].push(run(impl))
  const of = (impl, key) => summary(out[impl].map((s) => s[key]))
  return Object.fromEntries(['native', 'js'].map((impl) => [impl, { totalMs: of(impl, 'totalMs'), importMs: of(impl, 'importMs'), applyMs: of(impl, 'applyMs'), rssDelta: of(impl, 'rssDelta'), heapDelta: of(impl, 'heapDelta'), externalDelta: of(impl, 'externalDelta') }]))
}

/**
 * Row 1e: the first turn after a resume in a fresh process (bench/resume-child.mjs), for each
 * log size, alternating native/JS: `{ n, native: { stepMs, mountMs, totalMs }, js: … }` summaries
 * (`totalMs`: the import and mount and the first step, per sample), from
 * the same consumer folder as row 3.
 */
export function resumeCost({ sizes = [1_000, 10_000, 100_000], samples = 16 } = {}) {
  const child = join(dirname(consumer()), 'resume-child.mjs')
  const lib = new URL('./lib.mjs', import.meta.url).href
  const run = (impl, n) => JSON.parse(execFileSync(process.execPath, [child, impl, String(n), lib], { encoding: 'utf8' }).trim().split('\n').pop())
  run('native', sizes[0]) // page cache warm-up, as for row 3 (not recorded)
  run('js', sizes[0])
  return sizes.map((n) => {
    const out = { native: [], js: [] }
    for (let i = 0; i < samples; i++) for (const impl of i % 2 ? ['js', 'native'] : ['native', 'js']) out[impl].push(run(impl, n))
    const of = (impl, key) => summary(out[impl].map((s) => s[key]))
    for (const impl of ['native', 'js']) for (const s of out[impl]) s.totalMs = s.mountMs + s.stepMs
    return { n, ...Object.fromEntries(['native', 'js'].map((impl) => [impl, { stepMs: of(impl, 'stepMs'), mountMs: of(impl, 'mountMs'), totalMs: of(impl, 'totalMs') }])) }
  })
}
