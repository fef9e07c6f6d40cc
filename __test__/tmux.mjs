// Private tmux servers for tests and benchmarks (`tmux -L <name> -f /dev/null`), and the pane probe
// launcher: the probe runs as a pane's own process, so it owns the pane's tty like a real agent.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'

const probe = fileURLToPath(new URL('./fixtures/pane-probe.mjs', import.meta.url))
let counter = 0

export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

const shellQuote = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`

export class TmuxServer {
  constructor() {
    this.socket = `dshtc-test-${process.pid}-${++counter}`
    this.dir = mkdtempSync(join(tmpdir(), 'dshtc-'))
    this.started = false
  }

  tmux(...args) {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' }).replace(/\n$/, '')
  }

  /** A new session (detached) running a shell; returns its `$id`. */
  newSession(name, windowName = 'main') {
    const id = this.tmux('new-session', '-d', '-P', '-F', '#{session_id}', '-s', name, '-n', windowName, '-x', '160', '-y', '40', 'sleep 600')
    if (!this.started) this.tmux('set-option', '-g', 'remain-on-exit', 'on')
    this.started = true
    return id
  }

  /** Writes `spec` and returns the command that runs the probe on it, with `prefix` (e.g. env, setsid). */
  probeCommand(spec, prefix = '') {
    const file = join(this.dir, `spec-${++counter}.json`)
    const out = join(this.dir, `out-${counter}.json`)
    writeFileSync(file, JSON.stringify({ ...spec, out }))
    return { out, command: `exec ${prefix} ${shellQuote(process.execPath)} ${shellQuote(probe)} ${shellQuote(file)}` }
  }

  /** Runs the probe in a new window of `sessionId` (`-d`: in the background unless `active`). */
  async probeInWindow(sessionId, windowName, spec, { prefix = '', active = false, timeoutMs = 30_000 } = {}) {
    const { out, command } = this.probeCommand(spec, prefix)
    const paneId = this.tmux('new-window', ...(active ? [] : ['-d']), '-P', '-F', '#{pane_id}', '-t', `${sessionId}:`, '-n', windowName, command)
    return { paneId, result: await waitForJson(out, timeoutMs) }
  }

  kill() {
    let socketPath
    try {
      if (this.started) {
        socketPath = this.tmux('display-message', '-p', '#{socket_path}')
        this.tmux('kill-server')
      }
    } catch {}
    // tmux 3.3a leaves the socket file behind after kill-server.
    if (socketPath) rmSync(socketPath, { force: true })
    rmSync(this.dir, { recursive: true, force: true })
  }
}

export async function waitForJson(file, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, 'utf8'))
      } catch {}
    }
    await sleep(25)
  }
  throw new Error(`no probe result at ${file} within ${timeoutMs} ms`)
}
