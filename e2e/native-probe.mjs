// e2e only: when the dsh process exits, write which tmux-context binaries it had mapped
// (`/proc/self/maps`) to `<config.dir>/native-probe-<pid>.json`. A check can then tell the native package
// from the JavaScript one (which maps none) without taking the package's own word for it. Also which
// sandbox backend the process's `ctx.sandbox` (dsh-sandbox-local) chose, once a confined call made it choose.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const name = 'e2e-native-probe'

export function apply (ctx, config) {
  // The provider's chain verdict, read when the tree disposes it (at exit the tree is already gone).
  let verdict
  ctx.inject(['sandbox'], (scope) => {
    scope.effect(() => () => { verdict = scope.sandbox.selectedRunner })
  })
  process.once('exit', () => {
    let maps = ''
    try { maps = readFileSync('/proc/self/maps', 'utf8') } catch {}
    const files = new Set()
    for (const line of maps.split('\n')) {
      const path = line.slice(line.indexOf('/'))
      if (line.includes('/') && /dsh-tmux-context[^/]*\.node$/.test(path)) files.add(path)
    }
    const sandbox = typeof verdict === 'object' ? verdict : { runner: verdict }
    writeFileSync(join(config.dir, `native-probe-${process.pid}.json`), JSON.stringify({ pid: process.pid, files: [...files], sandbox }) + '\n')
  })
}
