#!/usr/bin/env node
// The multi-turn end-to-end scenario: what the one-shot `dsh --profile headless` tasks cannot show, several
// turns of ONE agent in ONE session (a reading, then none while tmux is unchanged, then one after a
// rename-window). The plugin is installed and mounted exactly as in cli.mjs (`dsh plugin add`, the
// user's patch row); agent.mjs then boots the composition itself with dsh-app-boot `boot()` (Node 22) in
// the pane of a private tmux server and drives the turns; this orchestrator changes tmux between turns
// and checks the session log and the model requests.
//
// CLI:    node multi-turn.mjs [--turns N] [--rename-before T] [--timeout-ms MS] [--keep] [--permission-mode M]
//                              [--backend bwrap|landlock] [--plugin native|js]
//                              [--compaction auto|manual [--compact-at K] [--tool-turn K]]
// Module: import { runMultiTurn } from './multi-turn.mjs'; const report = await runMultiTurn({ turns: 3 })
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { E2E_DIR, NODE22, shQuote, waitUntil } from './lib/env.mjs'
import { messageText, readingsInRequest, taskTurn } from './lib/model.mjs'
import { nativeChecks, probeResults, profileDir } from './lib/profile.mjs'
import { backendEnv, bwrapWorks } from './lib/sandbox.mjs'
import { paneExports, runScenario, scenarioMain } from './lib/scenario.mjs'
import { analyzeTurns, findSessionLog, readSessionLog, turnChecks } from './lib/session-log.mjs'

/**
 * Run the multi-turn scenario once.
 * @param {object} [opts]
 * @param {number} [opts.turns=3] - turns of the one agent.
 * @param {number} [opts.renameBefore=3] - rename the window before this turn (0: never).
 * @param {number} [opts.timeoutMs=120000] - bound for the whole run.
 * @param {boolean} [opts.keep=false] - keep the temporary directory (the tmux server is always killed).
 * @param {string} [opts.permissionMode] - DSH_PERMISSION_MODE (default unset: the shipped workspace-write).
 * @param {'bwrap'|'landlock'} [opts.backend] - the sandbox backend the provider must choose (lib/sandbox.mjs);
 *   default: whatever this machine gives it.
 * @param {'native'|'js'} [opts.plugin='native'] - 'js': mount the JavaScript package instead (comparison runs).
 * @param {boolean} [opts.expectReadings=true] - false: check that no turn gets a reading (what the
 *   JavaScript package does under bwrap), instead of the readings tmux calls for.
 * @param {object} [opts.compaction] - a compaction in the middle of the session (compactionChecks):
 * @param {'auto'|'manual'} opts.compaction.mode - 'auto': dsh-compaction-basic's own trigger, with the
 *   DeepSeek adapter's catalog reporting a small `contextWindow` and long replies; 'manual': `/compact`
 *   through the command registry before turn `at`.
 * @param {number} opts.compaction.at - the turn it happens in (auto: as calibrated; manual: before it).
 * @param {number} [opts.compaction.contextWindow=28750] - the model's context window, tokens (auto).
 * @param {number} [opts.compaction.replyChars=24000] - padding of each answer, characters.
 * @param {number} [opts.compaction.toolTurn] - in this turn the model first calls the shipped `bash`
 *   tool with `true`, so an automatic compaction happens at the turn's second step.
 * @returns {Promise<object>} the report (see README.md); `ok` tells whether every check passed.
 */
export function runMultiTurn (opts = {}) {
  const turns = opts.turns ?? 3
  const renameBefore = opts.renameBefore ?? 3
  const report = { tmux: undefined, agent: { node: NODE22 }, turns: [], events: 0, logPath: undefined, shellProbe: undefined, environment: undefined }
  const plugin = opts.plugin ?? 'native'
  const expectReadings = opts.expectReadings ?? true
  const compaction = opts.compaction && { contextWindow: 28_750, replyChars: 24_000, ...opts.compaction }
  const frame = { prefix: 'dsh-multi-turn-e2e-', dirs: ['sync'], timeoutMs: opts.timeoutMs ?? 120_000, keep: opts.keep, plugin,
    model: compaction && { replyChars: compaction.replyChars, toolTurn: compaction.toolTurn },
    env: { ...(opts.permissionMode === undefined ? {} : { DSH_PERMISSION_MODE: opts.permissionMode }), ...backendEnv(opts.backend) } }
  const agentLog = (s) => { report.agentLog = readFileSync(join(s.sync, 'agent.log'), 'utf8').split('\n').slice(-40).join('\n') }
  return runScenario(frame, report, async ({ s, env, tmux, model, check, profile, deadline }) => {
    report.environment = {
      orchestratorNode: process.version,
      tmux: tmux.version(),
      // dsh-sandbox-local prefers bwrap (which hides /tmp and the host's ptys) over Landlock.
      bwrap: spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8', env }).stdout.trim() || null,
      bwrapWorks: bwrapWorks(env),
      backendAsked: opts.backend ?? null,
      plugin,
      permissionMode: env.DSH_PERMISSION_MODE ?? 'workspace-write (shipped default)',
    }
    // Not `exec`: tmux 3.3a (started from Node) may never report #{pane_dead_status} for an exec'd
    // pane process, so the shell records the exit code. The agent is its foreground child, on the pane's tty.
    const script = join(s.root, 'pane.sh')
    let compactionArgs = ''
    if (compaction?.mode === 'manual') compactionArgs = ` --compact-before ${compaction.at}`
    if (compaction?.mode === 'auto') {
      // The adapter's own catalog entry for the default model, as a user would configure a smaller model.
      const window = join(s.root, 'context-window.patch.yml')
      writeFileSync(window, `- id: llm-deepseek\n  config:\n    models:\n      - id: deepseek-v4-flash\n        contextWindow: ${compaction.contextWindow}\n`)
      compactionArgs = ` --overlay ${shQuote(window)}`
    }
    writeFileSync(script, paneExports(env) +
      `${shQuote(NODE22)} ${shQuote(join(E2E_DIR, 'agent.mjs'))} --sync ${shQuote(s.sync)} --profile-dir ${shQuote(profileDir(s.home))} ` +
      `--turns ${turns} --go-timeout-ms ${opts.timeoutMs ?? 120_000}${compactionArgs} 2>> ${shQuote(join(s.sync, 'agent.stderr'))}\necho $? > ${shQuote(join(s.sync, 'exit-code'))}\n`)
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
      expected.set(k, state === previous || !expectReadings ? undefined : `tmux location (turn ${k}):\n${state}`)
      previous = state
      writeFileSync(file(`go-${k}`), '')
    }
    const result = await waitUntil('the agent to finish', deadline, readResult,
      () => (existsSync(file('exit-code')) && readResult() === undefined ? 'the agent exited' : undefined))
    report.agent.result = result
    report.shellProbe = result.shellProbe
    Object.assign(report, { sandbox: result.sandbox, queries: result.queries, writeProbe: result.writeProbe })
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
    if (compaction !== undefined) {
      compactionChecks(check, report, { events, compaction, model, renameBefore, expectReadings, compact: result.compact })
    }
    for (const t of compaction === undefined ? report.turns : []) {
      t.expected = expected.get(t.turn)
      // The turn's own model request: the one whose newest task is this turn's.
      const req = model.requests.find((r) => !r.title && hasTask(r, texts[t.turn - 1]) && !hasTask(r, texts[t.turn]))
      t.request = req && { n: req.n, readings: readingsInRequest(req.body), userIndex: req.body.messages.findIndex((m) => m.role === 'user' && messageText(m) === texts[t.turn - 1]) }
      check(`turn ${t.turn}: a model request`, req !== undefined)
      turnChecks(check, `turn ${t.turn}`, t, t.expected, t.request)
    }
    // Nothing is confined under danger-full-access, so the provider never chooses then.
    if (opts.backend !== undefined && env.DSH_PERMISSION_MODE !== 'danger-full-access') {
      check(`the sandbox provider chose ${opts.backend}`, result.sandbox?.runner === opts.backend, result.sandbox)
    }
    sandboxChecks(check, report, env.DSH_PERMISSION_MODE)
    if (compaction === undefined && expectReadings && renameBefore >= 1 && renameBefore <= turns) {
      check(`turn ${renameBefore}: the reading names the renamed window`, report.turns[renameBefore - 1]?.readings[0]?.includes(JSON.stringify(report.tmux.windowRenamed.to)))
    }
    const probe = probeResults(s.probe)[0]
    if (plugin === 'native') {
      nativeChecks(check, 'agent', { home: s.home, probe, stderr: readFileSync(file('agent.stderr'), 'utf8'), tarballs: profile.tarballs, resolved: profile.resolved })
    } else {
      check('agent: the JavaScript package ran (no native binary mapped)', probe !== undefined && probe.files.length === 0, probe)
    }
  }, agentLog)
}

/**
 * The checks of a session with a compaction in it: it happened where asked (automatically inside turn
 * `at`, at its second step when the model called a tool first; or by `/compact` before turn `at`) and
 * shadowed the turn-1 reading; then, for the native package, every conversation request of every turn
 * carries a reading (the re-read comes in the compaction's own step), the re-read is logged once and
 * names what tmux reports, and the reading after the rename names the renamed window. With
 * `expectReadings` false (the JavaScript package), the requests from the compaction until the rename
 * carry none, which is what that package does. `report.requestsByTurn` records, per turn, each model
 * request (`n`, `kind`: answer or tool-call, `readings`: how many it carried).
 */
function compactionChecks (check, report, { events, compaction, model, renameBefore, expectReadings, compact }) {
  const { at } = compaction
  const reading = (e) => e.type === 'user/message' && e.data?.source?.plugin === 'tmux-context'
  const firstReading = events.find(reading)
  const summaries = events.filter((e) => e.type === 'compaction/summary')
  const starts = events.filter((e) => e.type === 'compaction/start')
  report.compactions = summaries.map((e, i) => ({ startSeq: starts[i]?.seq, turn: starts[i]?.data?.turn, shadowedSeqs: e.data.shadowedSeqs.length, shadowedRange: e.data.shadowedRange }))
  check('a compaction shadowed the turn-1 reading', firstReading !== undefined && summaries.some((e) => e.data.shadowedSeqs.includes(firstReading.seq)), { reading: firstReading?.seq, compactions: report.compactions })
  const turnStart = (k) => events.find((e) => e.type === 'turn/start' && e.data?.turn === k)?.seq ?? Infinity
  if (compaction.mode === 'manual') {
    check(`/compact ran before turn ${at}`, compact?.result?.kind === 'success' && starts.length >= 1 && starts[0].data.turn === null &&
      starts[0].seq > turnStart(at - 1) && starts[0].seq < turnStart(at), { compact, compactions: report.compactions })
  } else {
    check(`the automatic compaction ran inside turn ${at}`, starts.length >= 1 && starts[0].data.turn === at, report.compactions)
  }
  if (compaction.toolTurn !== undefined) {
    const stepsBefore = events.filter((e) => e.type === 'step/start' && e.data?.turn === at && e.seq < (starts[0]?.seq ?? -1)).map((e) => e.data.step)
    const called = events.some((e) => e.type === 'tool/result' && e.seq < (starts[0]?.seq ?? -1) && e.seq > turnStart(at))
    check(`the compaction ran at a later step of turn ${at}, after the model's bash call`, stepsBefore.length >= 1 && called, { stepsBefore, called })
  }
  // Each conversation request, by the turn whose task is the newest in it; a request whose task a
  // compaction folded into its summary belongs to the turn of the request before it (they are sequential).
  report.requestsByTurn = report.turns.map((t) => ({ turn: t.turn, requests: [] }))
  let current
  for (const r of model.requests.filter((r) => r.kind === 'answer' || r.kind === 'tool-call')) {
    current = taskTurn(r.body) ?? current
    report.requestsByTurn[current - 1]?.requests.push({ n: r.n, kind: r.kind, readings: readingsInRequest(r.body).length })
  }
  const carried = report.requestsByTurn.filter((t) => t.requests.length > 0 && t.requests.every((r) => r.readings > 0)).map((t) => t.turn)
  report.turnsWhoseRequestsCarryAReading = carried
  for (const t of report.turns) check(`turn ${t.turn}: turn completed`, t.completed, t.endReason)
  check('every turn has a conversation request', report.requestsByTurn.every((t) => t.requests.length > 0), report.requestsByTurn)
  const all = report.turns.map((t) => t.turn)
  const renamed = report.tmux.windowRenamed?.to
  const renamedReading = report.turns[renameBefore - 1]?.readings[0]
  if (expectReadings) {
    check('every conversation request of every turn carries a reading', carried.length === all.length, report.requestsByTurn)
    const reread = report.turns[at - 1]
    const state = reread?.readings[0]?.split('\n').slice(1).join('\n')
    check(`turn ${at}: one reading, read again after the compaction, naming the same place as turn 1`, reread?.readings.length === 1 &&
      state === report.turns[0].readings[0]?.split('\n').slice(1).join('\n') && reread.readingSurfaceOps[0] === 'append', reread?.readings)
    if (renamed !== undefined) check(`turn ${renameBefore}: the reading names the window renamed just before`, renamedReading?.includes(JSON.stringify(renamed)), renamedReading)
  } else {
    const dark = all.filter((k) => k >= at && (renamed === undefined || k < renameBefore))
    check(`turns ${dark.join(', ')}: no request carries a reading after the compaction (the JavaScript package)`, dark.length > 0 && dark.every((k) => !carried.includes(k)), report.requestsByTurn)
  }
}

/**
 * What the plugin's queries ran under, from agent.mjs's record: under a sandboxing `ctx.shell` whose
 * policy is workspace-write, the native query asks for the same policy with mode read-only (one more
 * resolve) and runs with it; a `touch` in the workspace with that very spec is refused, while the
 * control, the same `touch` with the spec first resolved (workspace-write), is allowed. Other
 * deployment modes run as they are.
 */
function sandboxChecks (check, report, permissionMode) {
  const { queries, writeProbe } = report
  const confined = report.shellProbe?.sandboxMode !== undefined
  check('the plugin ran its query through ctx.shell', queries?.ran?.length > 0, queries)
  if (!confined || report.environment.plugin !== 'native') return
  const deployment = permissionMode ?? 'workspace-write'
  const wanted = deployment === 'workspace-write' ? 'read-only' : deployment
  check(`each query ran with sandbox mode ${wanted} (the deployment's is ${deployment})`,
    queries.ran.every((spec) => spec.sandboxPolicy?.mode === wanted), queries.ran.map((spec) => spec.sandboxPolicy))
  if (wanted !== 'read-only') return
  const { query, control } = writeProbe ?? {}
  check("a write with the query's own spec is refused (exit != 0, no file)",
    query !== undefined && query.error === undefined && query.exitCode !== 0 && !query.created, query)
  if (deployment !== 'workspace-write') return
  check('the control: the same write with the workspace-write spec succeeds',
    control?.policy?.mode === 'workspace-write' && control.exitCode === 0 && control.created, control)
}

await scenarioMain(import.meta.url, {
  turns: { type: 'string', default: '3' },
  'rename-before': { type: 'string', default: '3' },
  'permission-mode': { type: 'string' },
  backend: { type: 'string' },
  plugin: { type: 'string', default: 'native' },
  'no-readings-expected': { type: 'boolean', default: false },
  compaction: { type: 'string' },
  'compact-at': { type: 'string', default: '4' },
  'tool-turn': { type: 'string' },
}, (v) => runMultiTurn({ turns: Number(v.turns), renameBefore: Number(v['rename-before']), timeoutMs: v.timeoutMs, keep: v.keep,
  permissionMode: v['permission-mode'], backend: v.backend, plugin: v.plugin, expectReadings: !v['no-readings-expected'],
  compaction: v.compaction === undefined ? undefined : { mode: v.compaction, at: Number(v['compact-at']), toolTurn: v['tool-turn'] === undefined ? undefined : Number(v['tool-turn']) } }))
