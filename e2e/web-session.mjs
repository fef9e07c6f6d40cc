#!/usr/bin/env node
// Several turns of ONE session through the real `dsh` 0.1.0-rc.8 CLI, what `npm run demo` shows. The one-shot
// `headless` profile starts a new session per task; the `web` profile that dsh ships is its interactive one:
// `dsh --profile web --no-open` serves the browser UI and its HTTP API, where `session.create` opens a
// session and each `session.prompt` queues a message to it, one turn each (what the browser's text box
// does). The plugin is installed and mounted as in cli.mjs, into the `web` profile; `dsh` runs in the pane
// of a private tmux server; this orchestrator sends the prompts, makes the user's changes between them
// (a window rename, a split, a `cd` in the sibling pane, its program ending with status 3), and checks each
// turn's reading, or its absence,
// in the persisted session log and in the request the model received.
//
// CLI:    node web-session.mjs [--no-panes] [--timeout-ms MS] [--keep]   (prints a JSON report)
// Module: import { runWebSession } from './web-session.mjs'; const report = await runWebSession()
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { shQuote, waitUntil } from './lib/env.mjs'
import { messageText, newReadingsInRequest, readingsInRequest } from './lib/model.mjs'
import { nativeChecks, probeResults } from './lib/profile.mjs'
import { paneExports, runScenario, scenarioMain } from './lib/scenario.mjs'
import { promptTurn, rpc } from './lib/web-api.mjs'
import { analyzeTurns, findSessionLog, readSessionLog, turnChecks } from './lib/session-log.mjs'

export const WEB_PROFILE = 'web'

/**
 * The turns: each a prompt and the change the user makes in tmux just before it (none: nothing changed,
 * so no reading is due). `sibling` needs the split before it.
 */
export const WEB_TURNS = [
  { change: undefined, why: 'the first turn of the session' },
  { change: undefined, why: 'nothing changed' },
  { change: 'rename', why: 'the window renamed' },
  { change: 'split', why: 'the window split: a sibling pane running sh' },
  { change: 'cd', why: 'a `cd src` typed in the sibling pane' },
  { change: 'exit', why: 'the sibling pane\'s program ended with status 3 (remain-on-exit keeps the pane)' },
]

/** The shell command a user would type for a change, and doing it. */
function change (kind, { tmux, work }) {
  const t = `tmux -L ${tmux.socket}`
  if (kind === 'rename') {
    tmux.run('rename-window', '-t', tmux.paneId, 'demo-renamed')
    return `${t} rename-window demo-renamed`
  }
  if (kind === 'split') {
    tmux.sibling = tmux.run('split-window', '-d', '-h', '-t', tmux.paneId, '-c', work, '-P', '-F', '#{pane_id}', 'sh').trim()
    tmux.run('set-option', '-p', '-t', tmux.sibling, 'remain-on-exit', 'on')
    return `${t} split-window -d -h sh; ${t} set -p remain-on-exit on   # the new pane ${tmux.sibling}, beside the agent's, kept when its program ends`
  }
  if (kind === 'cd') {
    mkdirSync(join(work, 'src'), { recursive: true })
    tmux.run('send-keys', '-t', tmux.sibling, 'cd src', 'Enter')
    return `cd src   # typed in the pane ${tmux.sibling}`
  }
  if (kind === 'exit') {
    // tmux up to 3.6 may mark a pane dead before it has the status, and then never shows one; a job
    // in the background holds the terminal open a moment, so that tmux has the status first.
    tmux.run('send-keys', '-t', tmux.sibling, 'sleep 1 & exit 3', 'Enter')
    return `sleep 1 & exit 3   # typed in the pane ${tmux.sibling}: its sh ends with status 3 (the sleep keeps its terminal open a moment)`
  }
  throw new Error(`unknown change ${kind}`)
}

/**
 * Run the web-session scenario once.
 * @param {object} [opts]
 * @param {boolean} [opts.panes=true] - the plugin's `panes` setting (true: the sibling's `cd` is told too).
 * @param {object[]} [opts.turns=WEB_TURNS] - the turns and the change before each.
 * @param {number} [opts.timeoutMs=180000] - bound for the whole run.
 * @param {boolean} [opts.keep=false] - keep the temporary directory; tmux is always stopped.
 * @returns {Promise<object>} the report; `ok` tells whether every check passed.
 */
export function runWebSession (opts = {}) {
  const panes = opts.panes ?? true
  const turns = opts.turns ?? WEB_TURNS
  const report = { tmux: undefined, web: undefined, turns: [], events: 0 }
  const frame = { prefix: 'dsh-web-e2e-', dirs: ['run'], timeoutMs: opts.timeoutMs ?? 180_000, keep: opts.keep, profile: WEB_PROFILE, config: panes ? { panes: true } : {} }
  return runScenario(frame, report, async ({ s, env, tmux, model, check, profile, deadline }) => {
    const file = (name) => join(s.run, name)
    const read = (name) => (existsSync(file(name)) ? readFileSync(file(name), 'utf8') : '')
    const command = `dsh --profile ${WEB_PROFILE} --no-open --port 0`
    const script = join(s.root, 'pane.sh')
    writeFileSync(script, `${paneExports(env)}cd ${shQuote(s.work)}\n${command} > ${shQuote(file('out'))} 2> ${shQuote(file('err'))}\n` +
      `echo $? > ${shQuote(file('rc'))}.tmp && mv ${shQuote(file('rc'))}.tmp ${shQuote(file('rc'))}\n`)
    report.tmux = { ...tmux.start({ cwd: s.work, command: `sh ${shQuote(script)}` }), version: tmux.version() }
    const paneGone = () => (existsSync(file('rc')) ? `dsh exited (${read('rc').trim()}): ${read('err').slice(-1500)}` : undefined)
    const base = await waitUntil('the `dsh web:` line', deadline, () => /dsh web: (http:\/\/\S+)/.exec(read('out'))?.[1], paneGone)
    report.web = { command, url: base }
    const { sessionId } = await rpc(base, 'session.create', { cwd: s.work })
    report.sessionId = sessionId
    let previous
    for (const [i, turn] of turns.entries()) {
      const k = i + 1
      const done = turn.change && change(turn.change, { tmux, work: s.work })
      if (turn.change === 'cd') {
        await waitUntil('the sibling pane to be in src', deadline, () =>
          (tmux.run('display-message', '-p', '-t', tmux.sibling, '#{pane_current_path}').trim() === join(s.work, 'src') ? true : undefined))
      }
      if (turn.change === 'exit') {
        await waitUntil('the sibling pane to be dead with its status', deadline, () =>
          (tmux.run('display-message', '-p', '-t', tmux.sibling, '#{pane_dead}#{pane_dead_status}').trim() === '13' ? true : undefined))
      }
      if (turn.change === 'split') {
        // tmux starts it as `$SHELL -c sh`: for a few milliseconds its command reads as that shell.
        await waitUntil('the new pane to run sh', deadline, () =>
          (tmux.run('display-message', '-p', '-t', tmux.sibling, '#{pane_current_command}').trim() === 'sh' ? true : undefined))
      }
      const state = tmux.expectedReading({ panes, home: env.HOME })
      const expected = state === previous ? undefined : `tmux location (turn ${k}):\n${state}`
      previous = state
      const task = `Turn ${k}: where am I in tmux? Answer in one line.`
      const t0 = Date.now()
      const got = await promptTurn(base, sessionId, task, { deadline, failed: paneGone })
      check(`turn ${k}: the prompt ran as turn ${k} of the session`, got.turn === k, got.turn)
      check(`turn ${k}: session.history shows ${expected ? 'its reading' : 'no reading'}`,
        JSON.stringify(got.readings.map((r) => r.text)) === JSON.stringify(expected ? [expected] : []), got.readings)
      report.turns.push({ turn: k, why: turn.why, change: done, task, expected, ms: Date.now() - t0 })
    }
    // Stop dsh as a signal does (SIGTERM: an orderly shutdown that flushes the session log, exit 0).
    const pid = spawnSync('ps', ['-o', 'pid=', '--ppid', String(report.tmux.panePid)], { encoding: 'utf8' }).stdout.trim().split(/\s+/)[0]
    if (pid) process.kill(Number(pid), 'SIGTERM')
    report.web.exitCode = await waitUntil('dsh to exit', deadline, () => (existsSync(file('rc')) ? Number(read('rc').trim()) : undefined))
    check('dsh web exited 0 on SIGTERM', report.web.exitCode === 0, read('err').slice(-1500))

    const logPath = findSessionLog(join(s.home, 'sessions'), sessionId)
    check(`a session log for ${sessionId}`, logPath !== undefined)
    const events = logPath ? readSessionLog(logPath) : []
    Object.assign(report, { logPath, events: events.length })
    const analyzed = analyzeTurns(events, turns.length)
    const hasTask = (r, text) => r.body?.messages?.some((m) => m.role === 'user' && messageText(m) === text)
    for (const t of report.turns) {
      const log = analyzed[t.turn - 1]
      const req = model.requests.find((r) => !r.title && hasTask(r, t.task) && !hasTask(r, report.turns[t.turn]?.task ?? '\0'))
      t.request = req && { n: req.n, messages: req.body.messages.length, readings: readingsInRequest(req.body), fresh: newReadingsInRequest(req.body),
        userIndex: req.body.messages.findIndex((m) => m.role === 'user' && messageText(m) === t.task) }
      t.log = { readings: log.readings, seqs: log.seqs }
      check(`turn ${t.turn}: a model request`, req !== undefined)
      turnChecks(check, `turn ${t.turn}`, log, t.expected, t.request)
      check(`turn ${t.turn}: the request's new readings are this turn's`, (t.request?.fresh.length ?? -1) === (t.expected === undefined ? 0 : 1), t.request?.fresh)
    }
    check('one session for every turn', model.requests.filter((r) => !r.title).every((r) => r.sessionId === sessionId), model.requests.map((r) => r.sessionId))
    const probe = probeResults(s.probe)[0]
    report.probe = probe
    nativeChecks(check, 'dsh web', { home: s.home, probe, stderr: read('err'), tarballs: profile.tarballs, resolved: profile.resolved, profile: WEB_PROFILE })
    report.loadLine = read('err').split('\n').find((l) => l.includes('tmux-context: native build '))
  })
}

await scenarioMain(import.meta.url, { 'no-panes': { type: 'boolean', default: false } },
  (v) => runWebSession({ panes: !v['no-panes'], timeoutMs: v.timeoutMs, keep: v.keep }))
