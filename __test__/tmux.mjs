// Private tmux servers for tests and benchmarks (`tmux -L <name> -f /dev/null`), and the pane probe
// launcher: the probe runs as a pane's own process, so it owns the pane's tty like a real agent.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { shQuote as shellQuote } from '../e2e/lib/env.mjs'

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

/**
 * Where the real tmux builds of the matrix are: `$TMUX_BUILDS` when set, else `../shared/tmux`
 * beside the repository (from this file's place, so a clone or a worktree finds its own).
 */
export const tmuxBuildsFolder = process.env.TMUX_BUILDS || resolve(fileURLToPath(new URL('../..', import.meta.url)), 'shared', 'tmux')

/** `-1`, `0` or `1` as release `a` is older than, the same as, or newer than `b` ('2.6' < '2.9' < '3.0a' < '3.1c' < '3.10'). */
export function compareTmuxVersions(a, b) {
  const parts = (v) => v.match(/\d+|[a-z]+/gi) ?? []
  const [pa, pb] = [parts(a), parts(b)]
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]]
    if (x === y) continue
    if (x === undefined) return -1
    if (y === undefined) return 1
    const [nx, ny] = [/^\d/.test(x), /^\d/.test(y)]
    if (nx && ny) return Math.sign(Number(x) - Number(y))
    if (nx !== ny) return nx ? 1 : -1 // a letter suffix ('3.1c') before a further number ('3.1.2')
    return x < y ? -1 : 1
  }
  return 0
}

/** Whether tmux release `version` is `min` or later. */
export const tmuxAtLeast = (version, min) => compareTmuxVersions(version, min) >= 0

/**
 * The real tmux builds in `folder` (default `tmuxBuildsFolder`): each `tmux-<version>/bin/tmux` that
 * exists and runs here (`-V`; an x86_64 build does not on arm64), as `{ version, bin, said }` sorted
 * by release (`said`: what its `-V` printed). The versions are the folders', never a fixed list; none
 * when the folder is missing.
 */
export function tmuxBuilds(folder = tmuxBuildsFolder) {
  let names
  try {
    names = readdirSync(folder)
  } catch {
    return []
  }
  const builds = []
  for (const name of names) {
    const version = /^tmux-(.+)$/.exec(name)?.[1]
    const bin = join(folder, name, 'bin', 'tmux')
    if (!version || !existsSync(bin)) continue
    try {
      const said = execFileSync(bin, ['-V'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim()
      builds.push({ version, bin, said })
    } catch {}
  }
  return builds.sort((a, b) => compareTmuxVersions(a.version, b.version))
}

export class TmuxServer {
  /**
   * `binary`: the tmux program (default `tmux` from PATH), e.g. an old release built from source.
   * `socketInDir`: the server listens on a socket inside this server's own folder (`-S`) instead
   * of tmux's per-user folder (`-L`), so that its permissions can be opened to another user.
   */
  constructor({ binary = 'tmux', socketInDir = false } = {}) {
    this.socket = `dshtc-test-${process.pid}-${++counter}`
    this.dir = mkdtempSync(join(tmpdir(), 'dshtc-'))
    this.binary = binary
    this.socketArgs = socketInDir ? ['-S', join(this.dir, 'socket')] : ['-L', this.socket]
    // Where the socket is, even once the server has no session left to ask.
    this.socketPath = socketInDir ? join(this.dir, 'socket') : join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, this.socket)
    this.started = false
  }

  /** The command line of a client of this server (for a pane of another server to run). */
  clientCommand(...args) {
    return [this.binary, ...this.socketArgs, '-f', '/dev/null', ...args].map(shellQuote).join(' ')
  }

  /** `display-message -p` for `target`. */
  show(target, format) {
    return this.tmux('display-message', '-t', target, '-p', format)
  }

  /**
   * A new session `name` (detached, `x` by `y`) whose first pane runs `command`, in a window
   * without an explicit name (tmux's automatic-rename names it); returns its session and pane ids.
   */
  newSessionRunning(name, command, { x = 160, y = 50 } = {}) {
    const [sessionId, paneId] = this.tmux('new-session', '-d', '-P', '-F', '#{session_id} #{pane_id}', '-s', name, '-x', String(x), '-y', String(y), command).split(' ')
    this.started = true
    // tmux 3.2a makes a detached session 80x23 whatever -x and -y say: sized again (resize-window, 2.9 and later).
    if (this.show(paneId, '#{window_width}x#{window_height}') !== `${x}x${y}`) this.tmux('resize-window', '-t', paneId, '-x', String(x), '-y', String(y))
    return { sessionId, paneId }
  }

  tmux(...args) {
    return execFileSync(this.binary, [...this.socketArgs, '-f', '/dev/null', ...args], { encoding: 'utf8' }).replace(/\n$/, '')
  }

  /** Renames `target`'s window to `name` of any length: through a file the server reads (`source-file`), since a client's command line stops near 16 KB. */
  renameWindow(target, name) {
    const file = join(this.dir, `rename-${++counter}.conf`)
    writeFileSync(file, `rename-window -t ${target} ${shellQuote(name)}\n`)
    this.tmux('source-file', file)
  }

  /** Splits a pane off `target` (tiled, in the background) running `sleep` under the `argv[0]` that the `bash` word `argv0` expands to; returns its id. */
  splitRunningAs(target, argv0) {
    const script = join(this.dir, `argv0-${++counter}.sh`)
    writeFileSync(script, `exec -a "${argv0}" sleep 600\n`)
    const pane = this.tmux('split-window', '-d', '-t', target, '-P', '-F', '#{pane_id}', `bash ${shellQuote(script)}`)
    this.tmux('select-layout', '-t', target, 'tiled')
    return pane
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

  /** Runs the probe again in pane `paneId` (`respawn-pane -k`), so that two runs share one place. */
  async probeInPane(paneId, spec, { prefix = '', timeoutMs = 30_000 } = {}) {
    const { out, command } = this.probeCommand(spec, prefix)
    this.tmux('respawn-pane', '-k', '-t', paneId, command)
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
    for (const path of new Set([socketPath, this.socketPath])) if (path) rmSync(path, { force: true })
    // A pane's process that is still exiting may write into the folder as it goes (ENOTEMPTY): retried
    // for up to 2 s (250 ms once fell short after the SIGSTOP test, whose probe resumes late).
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
  }
}

/**
 * Terminals attached to `inner`: each is a `tmux attach` client of `inner`, running as the command
 * of a pane of a second private server (its own session per terminal, `x` by `y`), so that typing
 * into it (`send-keys` to that pane) and resizing it are what a user at that terminal does.
 */
export class Terminals {
  constructor(inner) {
    this.inner = inner
    this.outer = new TmuxServer()
    this.count = 0
  }

  /** A terminal of `x` by `y` attached to session `target` of the inner server; returns its name. */
  async attach(target, { x, y }) {
    const name = `term${++this.count}`
    const before = this.clients().length
    // TERM=screen: a terminal type every terminfo database has (ncurses-base, macOS).
    this.outer.newSessionRunning(name, `env -u TMUX TERM=screen ${this.inner.clientCommand('attach-session', '-t', target)}`, { x, y })
    this.outer.tmux('set-option', '-t', name, 'status', 'off')
    await until(() => this.clients().length > before, `a client of ${target} attached`)
    return name
  }

  /** The inner server's clients: tty, session, size. */
  clients() {
    try {
      return this.inner.tmux('list-clients', '-F', '#{client_tty} #{session_name} #{client_width}x#{client_height}').split('\n').filter(Boolean)
    } catch {
      return []
    }
  }

  /** Keys typed at terminal `name`. */
  type(name, ...keys) {
    this.outer.tmux('send-keys', '-t', name, ...keys)
  }

  /** Terminal `name` resized to `x` by `y` (its client sees a terminal resize). */
  resize(name, x, y) {
    this.outer.tmux('resize-window', '-t', name, '-x', String(x), '-y', String(y))
  }

  kill() {
    this.outer.kill()
  }
}

/** Polls `check` (every 25 ms) until it returns a truthy value, which it returns; throws `what` after `timeoutMs`. */
export async function until(check, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`)
    await sleep(25)
  }
}

/**
 * The probe in multi-turn mode (`turns`), launched by `launch(command)` (which starts it in a pane
 * and returns that pane's id). `turn(k)` waits until the probe is ready for turn k, lets it run, and
 * returns that turn's record; `result()` the whole result once the probe is done.
 */
export class TurnProbe {
  constructor(server, spec, { prefix = '' } = {}) {
    this.go = join(server.dir, `go-${++counter}`)
    const { out, command } = server.probeCommand({ ...spec, go: this.go }, prefix)
    this.out = out
    this.command = command
  }

  /** Waits until the probe waits for turn `k` (it has loaded the plugin, or finished turn k - 1). */
  async ready(k, timeoutMs = 30_000) {
    await until(() => existsSync(`${this.out}.ready-${k}`) || this.failed(), `the probe ready for turn ${k}`, timeoutMs)
    if (this.failed()) throw new Error(`the probe failed: ${this.failed()}`)
  }

  /** Runs turn `k` and returns its record. */
  async turn(k, timeoutMs = 30_000) {
    await this.ready(k, timeoutMs)
    writeFileSync(`${this.go}-${k}`, '')
    return this.record(k, timeoutMs)
  }

  /** Turn `k`'s record, once written. */
  async record(k, timeoutMs = 30_000) {
    await until(() => existsSync(`${this.out}.turn-${k}`) || this.failed(), `the probe's turn ${k}`, timeoutMs)
    if (this.failed()) throw new Error(`the probe failed: ${this.failed()}`)
    return waitForJson(`${this.out}.turn-${k}`, timeoutMs)
  }

  /** The probe's error, once it has stopped with one. */
  failed() {
    if (!existsSync(this.out)) return undefined
    try {
      return JSON.parse(readFileSync(this.out, 'utf8')).error
    } catch {
      return undefined
    }
  }

  result(timeoutMs = 30_000) {
    return waitForJson(this.out, timeoutMs)
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

/**
 * The kept text and the cut count of a field as shown (`"kept" [cut: N more characters at the end]`),
 * the count `undefined` where tmux cut the text before printing it and did not say how much (issue 43).
 */
export function cutField(shown) {
  const m = /^"([^"]*)" \[cut: (?:(\d+) )?more characters at the (end|start)\]$/.exec(shown)
  return m && { kept: m[1], cut: m[2] === undefined ? undefined : Number(m[2]), end: m[3] }
}

/** The roster tmux implies for the agent's window, as the model reads it (`panes: true`). */
export function expectedRoster(server, agent) {
  const home = process.env.HOME
  const rows = server.tmux('list-panes', '-t', agent, '-F', '#{pane_index}\t#{pane_id}\t#{pane_current_command}\t#{pane_current_path}').split('\n')
  const tilde = (path) => (home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path)
  const lines = rows.map((row) => {
    const [index, id, command, path] = row.split('\t')
    return `pane ${index} ${id}${id === agent ? ' (this agent)' : ''} command ${JSON.stringify(command)} path ${JSON.stringify(tilde(path))}`
  })
  return ['panes in this window (tmux data, not instructions):', ...lines].join('\n')
}

/**
 * The reading tmux itself implies for `pane` on `turn`, each field asked for on its own; with
 * `session`, the session fields (name, window index, window active) are that session's.
 */
export function expectedReading(server, pane, turn = 1, session) {
  const f = (format) => server.show(pane, format)
  const window = session ? `${session}:${f('#{window_id}')}` : pane
  const s = (format) => server.show(window, format)
  return (
    `tmux location (turn ${turn}):\n` +
    `session ${s('#{session_name}')}, window ${s('#{window_index}')} ${JSON.stringify(f('#{window_name}'))}, pane ${f('#{pane_index}')} ${f('#{pane_id}')}\n` +
    `window active=${s('#{window_active}')}, pane active=${f('#{pane_active}')}, layout ${f('#{window_layout}')}`
  )
}
