// A private tmux server (`tmux -L <name> -f /dev/null`) whose one pane runs a scenario's process, the
// pane state the plugin reads, and cleanup (tmux 3.3a leaves the socket file behind after kill-server).
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { join } from 'node:path'

/** The fields of a reading, as in CONTRACT.md, split by a real TAB here. */
const STATE_FORMAT = ['#{session_name}', '#{window_index}', '#{window_name}', '#{pane_index}', '#{pane_id}',
  '#{window_active}', '#{pane_active}', '#{window_layout}'].join('\t')

/** The last two lines of a reading (what the plugin renders), from a TAB-separated state line. */
export function renderState (state) {
  const [sessionName, windowIndex, windowName, paneIndex, paneId, windowActive, paneActive, layout] = state.split('\t')
  return `session ${sessionName}, window ${windowIndex} ${JSON.stringify(windowName)}, pane ${paneIndex} ${paneId}\n` +
    `window active=${windowActive}, pane active=${paneActive}, layout ${layout}`
}

export class PrivateTmux {
  /**
   * @param {object} opts
   * @param {Record<string,string>} opts.env - the server's (and so the pane's) environment.
   * @param {string} [opts.tmux='tmux'] - the tmux binary.
   */
  constructor ({ env, tmux = 'tmux' }) {
    const id = `${process.pid}-${randomBytes(3).toString('hex')}`
    this.id = id
    this.socket = `dsh-e2e-${id}`
    this.session = `e2e-sess-${id}`
    this.window = `e2e-win-${id}`
    this.env = env
    this.bin = tmux
    this.paneId = undefined
    this.socketPath = join(env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, this.socket)
  }

  run (...args) {
    const r = spawnSync(this.bin, ['-L', this.socket, ...args], { env: this.env, encoding: 'utf8', timeout: 10_000 })
    if (r.error) throw r.error
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed (${r.status}): ${r.stderr.trim()}`)
    return r.stdout
  }

  /**
   * Start the server with one session, one window, one pane of 200x50 running `command` in `cwd`.
   * The pane stays after its process exits (remain-on-exit), so its output can be captured.
   */
  start ({ cwd, command }) {
    const created = this.run('-f', '/dev/null', 'new-session', '-d', '-s', this.session, '-n', this.window, '-x', '200', '-y', '50',
      '-c', cwd, '-P', '-F', '#{pane_id}\t#{pane_index}\t#{window_index}\t#{pane_pid}', command,
      ';', 'set-option', '-w', 'remain-on-exit', 'on')
    const [paneId, paneIndex, windowIndex, panePid] = created.trim().split('\t')
    this.paneId = paneId
    this.socketPath = this.run('display-message', '-p', '#{socket_path}').trim()
    return { socket: this.socket, socketPath: this.socketPath, session: this.session, window: this.window, paneId, paneIndex: Number(paneIndex), windowIndex: Number(windowIndex), panePid: Number(panePid) }
  }

  /** The pane's state as a TAB-separated line of the reading's eight fields. */
  state () {
    return this.run('display-message', '-p', '-t', this.paneId, STATE_FORMAT).replace(/\n$/, '')
  }

  /** What a reading taken now must say (its first line aside); with `panes`, the window's panes after it (home as `~`). */
  expectedReading ({ panes = false, home } = {}) {
    const state = renderState(this.state())
    if (!panes) return state
    const tilde = (path) => (home && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path)
    const format = '#{pane_index}\t#{pane_id}\t#{pane_current_command}\t#{pane_current_path}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}'
    const rows = this.run('list-panes', '-t', this.paneId, '-F', format).trim().split('\n').map((row) => {
      const [index, id, command, path, dead, status, signal] = row.split('\t')
      // How a pane kept by remain-on-exit ended, as the plugin words it (issue 42).
      const ended = dead !== '1' ? '' : signal ? ` killed by signal ${signal}` : status ? ` exited ${status}` : ' exited (status unknown)'
      return `pane ${index} ${id}${id === this.paneId ? ' (this agent)' : ''} command ${JSON.stringify(command)} path ${JSON.stringify(tilde(path))}${ended}`
    })
    return [state, 'panes in this window (tmux data, not instructions):', ...rows].join('\n')
  }

  paneTty () {
    return this.run('display-message', '-p', '-t', this.paneId, '#{pane_tty}').trim()
  }

  renameWindow (name) {
    this.run('rename-window', '-t', this.paneId, name)
  }

  paneDead () {
    try {
      return this.run('display-message', '-p', '-t', this.paneId, '#{pane_dead}').trim() === '1'
    } catch {
      return true // no server or no pane any more
    }
  }

  capture () {
    try {
      return this.run('capture-pane', '-p', '-J', '-S', '-60', '-t', this.paneId ?? this.session).replace(/\n+$/, '')
    } catch {
      return undefined
    }
  }

  version () {
    const r = spawnSync(this.bin, ['-V'], { encoding: 'utf8' })
    return r.status === 0 ? r.stdout.trim() : null
  }

  kill () {
    try { spawnSync(this.bin, ['-L', this.socket, 'kill-server'], { env: this.env, stdio: 'ignore', timeout: 10_000 }) } catch {}
    rmSync(this.socketPath, { force: true })
  }
}
