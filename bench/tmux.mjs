// Row 2 and the process count, on a private tmux server (`tmux -L <name> -f /dev/null`):
//  - first-step pre-step latency: the pane probe of the tests (__test__/fixtures/pane-probe.mjs) runs
//    as a pane's own process with a real /bin/sh executor and times `iterations` first steps, each on
//    a fresh Session (so each one queries and injects). Probes alternate native/JS, round by round;
//    the first iteration of each probe process (cold JIT, first spawn) is left out.
//  - processes per query: bench/spawn-probe.mjs, in a pane, runs each implementation's actual
//    command (as captured from the executor's resolve()) under `strace -f`.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TmuxServer, hasTmux, waitForJson } from '../__test__/tmux.mjs'
import { REFERENCE, summary } from './lib.mjs'
import { shQuote as shellQuote } from '../e2e/lib/env.mjs'

const log = (...a) => console.error('[tmux]', ...a)

/**
 * First-step latency in a real pane, alternating probes; returns per-implementation summaries and
 * the length of the reading each injected. With `config` (`{ panes: true }`), ours runs with it in a
 * window of `siblings + 1` panes (default three; the JS package has no such option and reads its
 * three lines as always); with `windowName`, each probe's window is renamed to it first.
 */
export async function tmuxLatency({ rounds = 6, iterations = 6, config = {}, siblings = config.panes ? 2 : 0, windowName } = {}) {
  if (!hasTmux) return { skipped: 'tmux is not installed' }
  const server = new TmuxServer()
  try {
    const sessionId = server.newSession('bench', 'main')
    const samples = { native: [], js: [] }
    const readingChars = { native: [], js: [] }
    const first = { native: [], js: [] }
    for (let r = 0; r < rounds; r++) {
      for (const impl of r % 2 ? ['js', 'native'] : ['native', 'js']) {
        const { out, command } = server.probeCommand({ impl, reference: REFERENCE, config: impl === 'native' ? config : {}, iterations })
        const pane = server.tmux('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', `${sessionId}:`, '-n', `${impl}-${r}`, 'sh')
        for (let i = 0; i < siblings; i++) {
          server.tmux('split-window', '-d', '-t', pane, 'sh')
          server.tmux('select-layout', '-t', pane, 'tiled')
        }
        if (windowName !== undefined) server.renameWindow(pane, windowName)
        server.tmux('respawn-pane', '-k', '-t', pane, command)
        const result = await waitForJson(out, 60_000)
        if (result.error) throw new Error(`${impl} probe failed: ${result.error}`)
        if (result.readings.length !== 1 || result.passedThrough.some(Boolean)) {
          throw new Error(`${impl} probe did not inject a reading on every first step: ${JSON.stringify(result)}`)
        }
        first[impl].push(result.durationsMs[0])
        readingChars[impl].push(result.readings[0].length)
        samples[impl].push(...result.durationsMs.slice(1))
        // The next round in a session of the same size (remain-on-exit keeps a window whose probe ended).
        server.tmux('kill-window', '-t', pane)
      }
      log(`round ${r + 1}/${rounds} done`)
    }
    return {
      native: summary(samples.native),
      js: summary(samples.js),
      firstOfProcess: { native: summary(first.native), js: summary(first.js) },
      readingChars: { native: Math.max(...readingChars.native), js: Math.max(...readingChars.js) },
    }
  } finally {
    server.kill()
  }
}

/** Each implementation's query command, run once in a real pane under `strace -f`. */
export async function spawnCounts() {
  if (!hasTmux) return { skipped: 'tmux is not installed' }
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' })
  } catch {
    return { skipped: 'strace is not installed (apt-get install strace)' }
  }
  const server = new TmuxServer()
  try {
    const sessionId = server.newSession('bench-strace', 'main')
    const spec = join(server.dir, 'strace-spec.json')
    const out = join(server.dir, 'strace-out.json')
    writeFileSync(spec, JSON.stringify({ out, reference: REFERENCE }))
    const probe = fileURLToPath(new URL('./spawn-probe.mjs', import.meta.url))
    server.tmux('new-window', '-d', '-t', `${sessionId}:`, '-n', 'strace', `exec ${shellQuote(process.execPath)} ${shellQuote(probe)} ${shellQuote(spec)}`)
    const result = await waitForJson(out, 60_000)
    if (result.error) throw new Error(`strace probe failed: ${result.error}`)
    for (const [name, r] of Object.entries(result.impls)) {
      if (r.exitCode !== 0 || !r.reading) throw new Error(`${name}: the traced query did not produce a reading (exit ${r.exitCode}, stderr ${r.stderr})`)
    }
    const strip = (t) => t.split('\n').slice(1).join('\n')
    if (strip(result.impls.native.reading) !== strip(result.impls.js.reading)) {
      throw new Error(`the two implementations read different locations:\n${result.impls.native.reading}\n---\n${result.impls.js.reading}`)
    }
    return result
  } finally {
    server.kill()
  }
}
