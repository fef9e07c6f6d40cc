// Row 3: package import + apply time and the RSS it adds, one fresh node process per sample
// (bench/import-child.mjs), alternating native/JS.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { summary } from './lib.mjs'

const child = fileURLToPath(new URL('./import-child.mjs', import.meta.url))

export function importCost({ samples = 20 } = {}) {
  const out = { native: [], js: [] }
  const run = (impl) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', child, impl], { encoding: 'utf8' }).trim().split('\n').pop())
  run('native') // page cache warm-up of both packages (not recorded)
  run('js')
  for (let i = 0; i < samples; i++) for (const impl of i % 2 ? ['js', 'native'] : ['native', 'js']) out[impl].push(run(impl))
  const of = (impl, key) => summary(out[impl].map((s) => s[key]))
  return Object.fromEntries(['native', 'js'].map((impl) => [impl, { totalMs: of(impl, 'totalMs'), importMs: of(impl, 'importMs'), applyMs: of(impl, 'applyMs'), rssDelta: of(impl, 'rssDelta'), heapDelta: of(impl, 'heapDelta'), externalDelta: of(impl, 'externalDelta') }]))
}
