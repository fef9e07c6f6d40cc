#!/usr/bin/env node
// The orchestrator of the end-to-end harness (plain Node 20 or 22, builtins only).
//
// It makes a private tmux server, starts agent.mjs (with e2e/node_modules/.bin/node,
// Node 22) as the process of a pane of it, lets it run N turns of ONE agent in ONE
// session, renames the window before turn T, then reads the persisted session log
// and prints one JSON object. The tmux server and the temporary directory are
// removed on every path (unless --keep keeps the directory).
//
// CLI:    node run.mjs [--turns N] [--rename-before T] [--timeout-ms MS] [--keep]
// Module: import { runE2E } from './run.mjs'; const report = await runE2E({ turns: 3 })
import { spawnSync, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import * as zlib from 'node:zlib'

export const E2E_DIR = dirname(fileURLToPath(import.meta.url))
export const PLUGIN_NAME = 'tmux-context'
/** The tmux format the plugin reads, as in CONTRACT.md, fields split by a real TAB here. */
const STATE_FORMAT = ['#{session_name}', '#{window_index}', '#{window_name}', '#{pane_index}', '#{pane_id}',
  '#{window_active}', '#{pane_active}', '#{window_layout}'].join('\t')

function shQuote (s) {
  return `'${String(s).replaceAll("'", `'\\''`)}'`
}

/**
 * Run the whole end-to-end scenario once.
 * @param {object} [opts]
 * @param {number} [opts.turns=3] - turns of the one agent.
 * @param {number} [opts.renameBefore=3] - rename the window before this turn (0: never).
 * @param {number} [opts.timeoutMs=120000] - bound for the whole run.
 * @param {boolean} [opts.keep=false] - keep the temporary directory (the tmux server is always killed).
 * @param {string} [opts.node] - the Node >= 22 that runs agent.mjs.
 * @param {string} [opts.tmux='tmux'] - the tmux binary.
 * @param {string} [opts.newWindowName] - the name the window gets before turn `renameBefore`.
 * @param {Record<string,string>} [opts.env] - extra environment for the agent process.
 * @param {string} [opts.permissionMode] - DSH_PERMISSION_MODE for the composition (default: unset, i.e. the
 *   shipped workspace-write); see README.md about bwrap.
 * @returns {Promise<object>} the report (see README.md); `ok` tells whether every check passed.
 */
export async function runE2E (opts = {}) {
  const turns = opts.turns ?? 3
  const renameBefore = opts.renameBefore ?? 3
  const timeoutMs = opts.timeoutMs ?? 120_000
  const keep = opts.keep ?? false
  const node = opts.node ?? process.env.DSH_E2E_NODE ?? join(E2E_DIR, 'node_modules', '.bin', 'node')
  const tmuxBin = opts.tmux ?? 'tmux'
  const t0 = Date.now()
  const deadline = t0 + timeoutMs
  const id = `${process.pid}-${randomBytes(3).toString('hex')}`
  const socket = `dsh-e2e-${id}`
  const session = `e2e-sess-${id}`
  const window = `e2e-win-${id}`
  const newWindowName = opts.newWindowName ?? `e2e-renamed-${id}`

  // realpath: the session-log directory is derived from the agent's cwd.
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-e2e-')))
  const home = join(tmp, 'home')
  const sync = join(tmp, 'sync')
  const work = join(tmp, 'work')
  const agentTmp = join(tmp, 'tmp') // the agent's TMPDIR: dsh-spill-*/dsh-subprocess-* dirs go away with ours
  for (const d of [home, sync, work, agentTmp]) mkdirp(d)

  const report = {
    ok: false,
    error: undefined,
    elapsedMs: undefined,
    tmux: { socket, session, window, windowRenamed: undefined, paneId: undefined, paneIndex: undefined, windowIndex: undefined, panePid: undefined, paneTty: undefined },
    agent: { node, pid: undefined, tty: undefined, sessionId: undefined, exitCode: undefined, result: undefined },
    turns: [],
    events: 0,
    logPath: undefined,
    checks: [],
    tmpDir: keep ? tmp : undefined,
    environment: undefined,
  }

  // The environment of the tmux server and so of the pane: ours, without an outer
  // tmux's variables and without any DSH_* setting that would change the composition.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DSH_') && k !== 'TMUX' && k !== 'TMUX_PANE'))
  Object.assign(env, { DSH_HOME: home, DSH_TELEMETRY_DISABLED: '1', TMPDIR: agentTmp }, opts.env ?? {})
  if (opts.permissionMode !== undefined) env.DSH_PERMISSION_MODE = opts.permissionMode

  report.environment = describeEnvironment(tmuxBin, env)
  const tmux = (...args) => {
    const r = spawnSync(tmuxBin, ['-L', socket, ...args], { env, encoding: 'utf8', timeout: 10_000 })
    if (r.error) throw r.error
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')} failed (${r.status}): ${r.stderr.trim()}`)
    return r.stdout
  }
  const paneState = () => tmux('display-message', '-p', '-t', report.tmux.paneId, STATE_FORMAT).replace(/\n$/, '')
  const paneDead = () => {
    try {
      return tmux('display-message', '-p', '-t', report.tmux.paneId, '#{pane_dead}').trim() === '1'
    } catch {
      return true // no server or no pane any more
    }
  }
  const readResult = () => {
    const file = join(sync, 'result.json')
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined
  }
  /** Wait for a sync file; fail fast when the agent already finished or died. */
  const waitFor = async (file, what) => {
    const path = join(sync, file)
    while (!existsSync(path)) {
      const result = readResult()
      if (result !== undefined && file !== 'result.json') throw new Error(`agent finished before ${what}: ${result.error ?? JSON.stringify(result.turns)}`)
      if (existsSync(join(sync, 'exit-code')) && !existsSync(path)) throw new Error(`agent exited (${readFileSync(join(sync, 'exit-code'), 'utf8').trim()}) before ${what}`)
      if (paneDead() && !existsSync(path)) throw new Error(`agent pane died before ${what}`)
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
      await sleep(50)
    }
  }

  // Where `tmux -L` puts the socket; tmux 3.3a leaves the file behind after kill-server.
  const socketPath = join(env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, socket)
  report.tmux.socketPath = socketPath
  const cleanup = () => {
    try { spawnSync(tmuxBin, ['-L', socket, 'kill-server'], { env, stdio: 'ignore', timeout: 10_000 }) } catch {}
    rmSync(socketPath, { force: true })
    if (!keep) rmSync(tmp, { recursive: true, force: true })
  }
  active.add(cleanup)

  const expected = new Map() // turn -> the state (last two reading lines) the orchestrator saw before go-k
  try {
    // Not `exec`: tmux 3.3a (started from Node) may never report #{pane_dead_status}
    // for an exec'd pane process, so the shell records the exit code itself. The
    // agent is the shell's foreground child, on the pane's tty.
    const agentCmd = `${shQuote(node)} ${shQuote(join(E2E_DIR, 'agent.mjs'))} --sync ${shQuote(sync)} --turns ${turns} --go-timeout-ms ${timeoutMs}; ` +
      `echo $? > ${shQuote(join(sync, 'exit-code'))}`
    const created = tmux('-f', '/dev/null', 'new-session', '-d', '-s', session, '-n', window, '-x', '200', '-y', '50', '-c', work,
      '-e', `DSH_HOME=${home}`, '-e', 'DSH_TELEMETRY_DISABLED=1', '-e', `TMPDIR=${agentTmp}`,
      '-P', '-F', '#{pane_id}\t#{pane_index}\t#{window_index}\t#{pane_pid}', agentCmd,
      ';', 'set-option', '-w', 'remain-on-exit', 'on')
    const [paneId, paneIndex, windowIndex, panePid] = created.trim().split('\t')
    report.tmux.socketPath = tmux('display-message', '-p', '#{socket_path}').trim()
    Object.assign(report.tmux, { paneId, paneIndex: Number(paneIndex), windowIndex: Number(windowIndex), panePid: Number(panePid) })

    let previousState
    for (let k = 1; k <= turns; k++) {
      await waitFor(`ready-${k}`, `turn ${k} readiness`)
      if (k === 1) {
        const ready = JSON.parse(readFileSync(join(sync, 'ready-1'), 'utf8'))
        report.agent.pid = ready.pid
        report.agent.sessionId = ready.sessionId
        // The agent process must live on the pane's tty (what the plugin verifies).
        report.tmux.paneTty = tmux('display-message', '-p', '-t', paneId, '#{pane_tty}').trim()
        const ps = spawnSync('ps', ['-o', 'tty=', '-p', String(ready.pid)], { encoding: 'utf8' })
        report.agent.tty = ps.status === 0 ? `/dev/${ps.stdout.trim()}` : undefined
      }
      if (k === renameBefore) {
        tmux('rename-window', '-t', paneId, newWindowName)
        report.tmux.windowRenamed = { beforeTurn: k, from: window, to: newWindowName }
      }
      const state = paneState()
      const rendered = renderState(state)
      expected.set(k, { rendered, changed: rendered !== previousState })
      previousState = rendered
      writeFileSync(join(sync, `go-${k}`), '')
    }
    await waitFor('result.json', 'the agent to finish')
    const result = readResult()
    report.agent.result = result
    report.shellProbe = result.shellProbe
    // The pane stays (remain-on-exit); wait briefly for the agent's exit code.
    const exitFile = join(sync, 'exit-code')
    for (let i = 0; i < 250 && !existsSync(exitFile); i++) await sleep(20)
    report.agent.exitCode = existsSync(exitFile) ? Number(readFileSync(exitFile, 'utf8').trim()) : undefined

    const logPath = findSessionLog(join(home, 'sessions'), result.sessionId)
    report.logPath = logPath
    if (logPath === undefined) throw new Error(`no session log for ${result.sessionId} under ${join(home, 'sessions')}`)
    const events = readSessionLog(logPath)
    report.events = events.length
    report.turns = analyzeTurns(events, turns)
    for (const t of report.turns) t.expectedState = expected.get(t.turn)?.rendered
    report.checks = checks(report, result, expected, renameBefore, newWindowName)
    report.ok = report.checks.every((c) => c.pass)
  } catch (error) {
    report.error = error instanceof Error ? error.message : String(error)
    try { report.agentLog = readFileSync(join(sync, 'agent.log'), 'utf8').split('\n').slice(-40).join('\n') } catch {}
    try { report.paneCapture = tmux('capture-pane', '-p', '-J', '-S', '-60', '-t', report.tmux.paneId ?? session).replace(/\n+$/, '') } catch {}
  } finally {
    active.delete(cleanup)
    cleanup()
    if (!keep && report.logPath) report.logPath = `${report.logPath} (removed; pass keep to keep it)`
    report.elapsedMs = Date.now() - t0
  }
  return report
}

/** Facts that decide whether the sandboxed shell can see tmux (README.md). */
function describeEnvironment (tmuxBin, env) {
  const out = (cmd, args) => {
    const r = spawnSync(cmd, args, { env, encoding: 'utf8', timeout: 5000 })
    return r.status === 0 ? r.stdout.trim() : null
  }
  return {
    orchestratorNode: process.version,
    tmux: out(tmuxBin, ['-V']),
    // dsh-sandbox-local prefers bwrap (which hides /tmp and the host's ptys) over Landlock.
    bwrap: out('sh', ['-c', 'command -v bwrap']),
    permissionMode: env.DSH_PERMISSION_MODE ?? 'workspace-write (shipped default)',
  }
}

function mkdirp (d) {
  mkdirSync(d, { recursive: true })
}

/** Cleanups of runs in progress, for the CLI's signal handlers. */
const active = new Set()

/** The last two lines of a reading, from a TAB-separated state line. */
export function renderState (state) {
  const [sessionName, windowIndex, windowName, paneIndex, paneId, windowActive, paneActive, layout] = state.split('\t')
  return `session ${sessionName}, window ${windowIndex} ${JSON.stringify(windowName)}, pane ${paneIndex} ${paneId}\n` +
    `window active=${windowActive}, pane active=${paneActive}, layout ${layout}`
}

/** Locate `<root>/<cwd-slug>/<sessionId>/session.jsonl[.zstd]`. */
export function findSessionLog (root, sessionId) {
  if (!existsSync(root)) return undefined
  for (const slug of readdirSync(root)) {
    for (const name of ['session.jsonl', 'session.jsonl.zstd']) {
      const p = join(root, slug, sessionId, name)
      if (existsSync(p)) return p
    }
  }
  return undefined
}

/** Read a session log (plain or zstd frames); returns the events (lines with a `seq`). */
export function readSessionLog (path) {
  let text
  if (path.endsWith('.zstd')) {
    const raw = readFileSync(path)
    text = typeof zlib.zstdDecompressSync === 'function'
      ? zlib.zstdDecompressSync(raw).toString('utf8')
      : execFileSync('zstd', ['-dc', path], { encoding: 'utf8', maxBuffer: 256 << 20 })
  } else {
    text = readFileSync(path, 'utf8')
  }
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)).filter((e) => typeof e.seq === 'number')
}

const isReading = (e) => e.type === 'user/message' && e.data?.source?.kind === 'plugin' && e.data.source.plugin === PLUGIN_NAME
const isUserOwn = (e) => e.type === 'user/message' && e.data?.source?.kind === 'user'
const textOf = (e) => (e.data?.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('')

/** Split the log into turns (turn/start .. turn/end) and describe each. */
export function analyzeTurns (events, expectedTurns) {
  const out = []
  for (let turn = 1; turn <= expectedTurns; turn++) {
    const start = events.findIndex((e) => e.type === 'turn/start' && e.data?.turn === turn)
    const endRel = start < 0 ? -1 : events.slice(start).findIndex((e) => e.type === 'turn/end' && e.data?.turn === turn)
    const end = endRel < 0 ? events.length : start + endRel
    const slice = start < 0 ? [] : events.slice(start, end + 1)
    const endEvent = endRel < 0 ? undefined : events[end]
    const readings = slice.filter(isReading)
    const stepStart = slice.findIndex((e) => e.type === 'step/start')
    const firstUserMessageAfterStep = stepStart < 0 ? -1 : slice.findIndex((e, i) => i > stepStart && e.type === 'user/message')
    const firstReading = slice.findIndex(isReading)
    const userOwn = slice.findIndex(isUserOwn)
    out.push({
      turn,
      completed: endEvent?.data?.reason?.kind === 'completed',
      endReason: endEvent?.data?.reason?.kind,
      readings: readings.map(textOf),
      readingSources: readings.map((e) => e.data.source),
      readingSurfaceOps: readings.map((e) => e.surfaceOp),
      // null when the turn has no reading: the ordering questions do not apply.
      readingIndexAfterStepStart: readings.length === 0 ? null : firstReading === firstUserMessageAfterStep && firstReading > stepStart,
      readingBeforeUserMessage: readings.length === 0 ? null : userOwn >= 0 && firstReading < userOwn,
      userMessage: userOwn >= 0 ? textOf(slice[userOwn]) : undefined,
      seqs: { turnStart: slice[0]?.seq, stepStart: slice[stepStart]?.seq, reading: slice[firstReading]?.seq, userMessage: slice[userOwn]?.seq, turnEnd: endEvent?.seq },
    })
  }
  return out
}

function checks (report, result, expected, renameBefore, newWindowName) {
  const list = []
  const check = (name, pass, detail) => list.push({ name, pass: Boolean(pass), ...(detail === undefined ? {} : { detail }) })
  check('agent finished ok', result?.ok === true, result?.error)
  check('agent exit code 0', report.agent.exitCode === 0, report.agent.exitCode)
  check('agent runs on the pane tty', report.agent.tty !== undefined && report.agent.tty === report.tmux.paneTty, { agent: report.agent.tty, pane: report.tmux.paneTty })
  check('one session for all turns', result?.turns?.length === report.turns.length && report.agent.sessionId === result?.sessionId)
  for (const t of report.turns) {
    const exp = expected.get(t.turn)
    check(`turn ${t.turn} completed`, t.completed, t.endReason)
    if (exp?.changed) {
      const want = `tmux location (turn ${t.turn}):\n${exp.rendered}`
      check(`turn ${t.turn} has exactly one reading`, t.readings.length === 1, t.readings.length)
      check(`turn ${t.turn} reading equals the pane state`, t.readings[0] === want, { want, got: t.readings[0] })
      const src = t.readingSources[0]
      check(`turn ${t.turn} reading source`, src?.kind === 'plugin' && src.plugin === 'tmux-context' && src.form === 'snapshot' &&
        Array.isArray(src.sections) && src.sections[0]?.name === 'tmux-context' && src.sections[0]?.text === t.readings[0])
      check(`turn ${t.turn} reading appended`, t.readingSurfaceOps[0] === 'append', t.readingSurfaceOps[0])
      check(`turn ${t.turn} reading is the first user/message after step/start`, t.readingIndexAfterStepStart === true)
      check(`turn ${t.turn} reading precedes the user's message`, t.readingBeforeUserMessage === true)
      if (t.turn === 1) {
        check('turn 1 reading names session, window and pane', t.readings[0]?.includes(`session ${report.tmux.session},`) &&
          t.readings[0]?.includes(JSON.stringify(report.tmux.window)) && t.readings[0]?.includes(` ${report.tmux.paneId}\n`))
      }
      if (t.turn === renameBefore) check(`turn ${t.turn} reading names the renamed window`, t.readings[0]?.includes(JSON.stringify(newWindowName)))
    } else {
      check(`turn ${t.turn} has no reading (tmux state unchanged)`, t.readings.length === 0, t.readings)
    }
  }
  return list
}

// ---- CLI ----
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      turns: { type: 'string', default: '3' },
      'rename-before': { type: 'string', default: '3' },
      'timeout-ms': { type: 'string', default: '120000' },
      keep: { type: 'boolean', default: false },
      'permission-mode': { type: 'string' },
    },
  })
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      for (const cleanup of active) cleanup()
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1))
    })
  }
  const report = await runE2E({
    turns: Number(values.turns),
    renameBefore: Number(values['rename-before']),
    timeoutMs: Number(values['timeout-ms']),
    keep: values.keep,
    permissionMode: values['permission-mode'],
  })
  process.stdout.write(JSON.stringify(report, null, 2) + '\n')
  process.exitCode = report.ok ? 0 : 1
}
