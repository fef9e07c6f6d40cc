#!/usr/bin/env node
// The multi-turn end-to-end scenario: what the one-shot `dsh --profile headless` tasks cannot show, several
// turns of ONE agent in ONE session (a reading, then none while tmux is unchanged, then one after a
// rename-window). The plugin is installed and mounted exactly as in cli.mjs (`dsh plugin add`, the
// user's patch row); agent.mjs then boots the composition itself with dsh-app-boot `boot()` (Node 22) in
// the pane of a private tmux server and drives the turns; this orchestrator changes tmux between turns
// and checks the session log and the model requests.
//
// CLI:    node multi-turn.mjs [--turns N] [--rename-before T] [--timeout-ms MS] [--keep] [--permission-mode M]
// Module: import { runMultiTurn } from './multi-turn.mjs'; const report = await runMultiTurn({ turns: 3 })
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { E2E_DIR, NODE22, shQuote, waitUntil } from './lib/env.mjs'
import { messageText, readingsInRequest } from './lib/model.mjs'
import { nativeChecks, probeResults, profileDir } from './lib/profile.mjs'
import { paneExports, runScenario, scenarioMain } from './lib/scenario.mjs'
import { analyzeTurns, findSessionLog, readSessionLog, turnChecks } from './lib/session-log.mjs'

/**
 * Run the multi-turn scenario once.
 * @param {object} [opts]
 * @param {number} [opts.turns=3] - turns of the one agent.
 * @param {number} [opts.renameBefore=3] - rename the window before this turn (0: never).
 * @param {number} [opts.timeoutMs=120000] - bound for the whole run.
 * @param {boolean} [opts.keep=false] - keep the temporary directory (the tmux server is always killed).
 * @param {string} [opts.permissionMode] - DSH_PERMISSION_MODE (default unset: the shipped workspace-write); see README.md about bwrap.
 * @returns {Promise<object>} the report (see README.md); `ok` tells whether every check passed.
 */
export function runMultiTurn (opts = {}) {
  const turns = opts.turns ?? 3
  const renameBefore = opts.renameBefore ?? 3
  const report = { tmux: undefined, agent: { node: NODE22 }, turns: [], events: 0, logPath: undefined, shellProbe: undefined, environment: undefined }
  const frame = { prefix: 'dsh-multi-turn-e2e-', dirs: ['sync'], timeoutMs: opts.timeoutMs ?? 120_000, keep: opts.keep,
    env: opts.permissionMode === undefined ? {} : { DSH_PERMISSION_MODE: opts.permissionMode } }
  const agentLog = (s) => { report.agentLog = readFileSync(join(s.sync, 'agent.log'), 'utf8').split('\n').slice(-40).join('\n') }
  return runScenario(frame, report, async ({ s, env, tmux, model, check, profile, deadline }) => {
    report.environment = {
      orchestratorNode: process.version,
      tmux: tmux.version(),
      // dsh-sandbox-local prefers bwrap (which hides /tmp and the host's ptys) over Landlock.
      bwrap: spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout.trim() || null,
      permissionMode: env.DSH_PERMISSION_MODE ?? 'workspace-write (shipped default)',
    }
    // Not `exec`: tmux 3.3a (started from Node) may never report #{pane_dead_status} for an exec'd
    // pane process, so the shell records the exit code. The agent is its foreground child, on the pane's tty.
    const script = join(s.root, 'pane.sh')
    writeFileSync(script, paneExports(env) +
      `${shQuote(NODE22)} ${shQuote(join(E2E_DIR, 'agent.mjs'))} --sync ${shQuote(s.sync)} --profile-dir ${shQuote(profileDir(s.home))} ` +
      `--turns ${turns} --go-timeout-ms ${opts.timeoutMs ?? 120_000} 2>> ${shQuote(join(s.sync, 'agent.stderr'))}\necho $? > ${shQuote(join(s.sync, 'exit-code'))}\n`)
    report.tmux = { ...tmux.start({ cwd: s.work, command: `sh ${shQuote(script)}` }), windowRenamed: undefined }

    const file = (name) => join(s.sync, name)
    const readResult = () => (existsSync(file('result.json')) ? JSON.parse(readFileSync(file('result.json'), 'utf8')) : undefined)
    const agentGone = () => {
      if (readResult() !== undefined) return 'the agent finished'
      if (existsSync(file('exit-code'))) return `the agent exited (${readFileSync(file('exit-code'), 'utf8').trim()})`
      return tmux.paneDead() ? 'the agent pane died' : undefined
    }
    const expected = new Map() // turn -> the reading due (undefined: none, the state is unchanged)
    let previous
    for (let k = 1; k <= turns; k++) {
      await waitUntil(`turn ${k} readiness`, deadline, () => (existsSync(file(`ready-${k}`)) ? true : undefined), agentGone)
      if (k === 1) {
        const ready = JSON.parse(readFileSync(file('ready-1'), 'utf8'))
        const ps = spawnSync('ps', ['-o', 'tty=', '-p', String(ready.pid)], { encoding: 'utf8' })
        Object.assign(report.agent, { pid: ready.pid, sessionId: ready.sessionId, tty: ps.status === 0 ? `/dev/${ps.stdout.trim()}` : undefined })
        report.tmux.paneTty = tmux.paneTty()
      }
      if (k === renameBefore) {
        const to = `e2e-renamed-${tmux.id}`
        tmux.renameWindow(to)
        report.tmux.windowRenamed = { beforeTurn: k, from: tmux.window, to }
      }
      const state = tmux.expectedReading()
      expected.set(k, state === previous ? undefined : `tmux location (turn ${k}):\n${state}`)
      previous = state
      writeFileSync(file(`go-${k}`), '')
    }
    const result = await waitUntil('the agent to finish', deadline, readResult,
      () => (existsSync(file('exit-code')) && readResult() === undefined ? 'the agent exited' : undefined))
    report.agent.result = result
    report.shellProbe = result.shellProbe
    report.agent.exitCode = await waitUntil("the agent's exit code", Math.min(deadline, Date.now() + 5000),
      () => (existsSync(file('exit-code')) ? Number(readFileSync(file('exit-code'), 'utf8').trim()) : undefined))

    check('agent finished ok', result.ok === true, result.error)
    check('agent exit code 0', report.agent.exitCode === 0, report.agent.exitCode)
    check('agent runs on the pane tty', report.agent.tty !== undefined && report.agent.tty === report.tmux.paneTty, { agent: report.agent.tty, pane: report.tmux.paneTty })
    check('one session for all turns', result.turns?.length === turns && report.agent.sessionId === result.sessionId)
    report.logPath = findSessionLog(join(s.home, 'sessions'), result.sessionId)
    if (report.logPath === undefined) throw new Error(`no session log for ${result.sessionId} under ${join(s.home, 'sessions')}`)
    const events = readSessionLog(report.logPath)
    report.events = events.length
    report.turns = analyzeTurns(events, turns)
    const texts = result.turns.map((t) => t.text)
    const hasTask = (r, text) => r.body?.messages?.some((m) => m.role === 'user' && messageText(m) === text)
    for (const t of report.turns) {
      t.expected = expected.get(t.turn)
      // The turn's own model request: the one whose newest task is this turn's.
      const req = model.requests.find((r) => !r.title && hasTask(r, texts[t.turn - 1]) && !hasTask(r, texts[t.turn]))
      t.request = req && { n: req.n, readings: readingsInRequest(req.body), userIndex: req.body.messages.findIndex((m) => m.role === 'user' && messageText(m) === texts[t.turn - 1]) }
      check(`turn ${t.turn}: a model request`, req !== undefined)
      turnChecks(check, `turn ${t.turn}`, t, t.expected, t.request)
    }
    if (renameBefore >= 1 && renameBefore <= turns) {
      check(`turn ${renameBefore}: the reading names the renamed window`, report.turns[renameBefore - 1]?.readings[0]?.includes(JSON.stringify(report.tmux.windowRenamed.to)))
    }
    nativeChecks(check, 'agent', { home: s.home, probe: probeResults(s.probe)[0], stderr: readFileSync(file('agent.stderr'), 'utf8'), tarballs: profile.tarballs, resolved: profile.resolved })
  }, agentLog)
}

await scenarioMain(import.meta.url, {
  turns: { type: 'string', default: '3' },
  'rename-before': { type: 'string', default: '3' },
  'permission-mode': { type: 'string' },
}, (v) => runMultiTurn({ turns: Number(v.turns), renameBefore: Number(v['rename-before']), timeoutMs: v.timeoutMs, keep: v.keep, permissionMode: v['permission-mode'] }))
