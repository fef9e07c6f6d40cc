#!/usr/bin/env node
// The main end-to-end job, the way a dsh user runs it: the real `dsh` 0.1.0-rc.8 binary (e2e/node_modules),
// a fresh DSH_HOME, `dsh plugin --profile headless add` with the packed tarballs, the user's patch row,
// a local model endpoint (DEEPSEEK_BASE_URL), then one-shot tasks `dsh --profile headless "<task>"` run
// one after the other in the one pane of a private tmux server, the window renamed in between.
// For each task it reports the reading the model received (from the request bodies) and where it sits in
// the persisted session log, and checks both byte for byte against what tmux reports for the pane.
//
// CLI:    node cli.mjs [--tasks N] [--rename-before K] [--timeout-ms MS] [--keep] [--backend bwrap|landlock]
//         (prints a JSON report)
// Module: import { runCli } from './cli.mjs'; const report = await runCli()
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PROFILE, shQuote, waitUntil } from './lib/env.mjs'
import { messageText, readingsInRequest } from './lib/model.mjs'
import { nativeChecks, nativeLoadLine, profileDir } from './lib/profile.mjs'
import { backendEnv } from './lib/sandbox.mjs'
import { paneExports, runScenario, scenarioMain } from './lib/scenario.mjs'
import { analyzeTurns, findSessionLog, readSessionLog, turnChecks } from './lib/session-log.mjs'

export const DEFAULT_TASKS = ['Where am I in tmux? Answer in one line.', 'And where am I in tmux now? Answer in one line.']

/** The pane's shell script: the user's commands, one task at a time, each when the orchestrator says go. */
function paneScript ({ env, work, run, tasks }) {
  const steps = tasks.map((task, i) => {
    const k = i + 1
    const file = (name) => shQuote(join(run, `${name}-${k}`))
    return `wait_for ${file('go')}\n` +
      `dsh --profile ${PROFILE} ${shQuote(task)} > ${file('out')} 2> ${file('err')}\n` +
      `echo $? > ${file('rc')}.tmp && mv ${file('rc')}.tmp ${file('rc')}\n`
  })
  return `# the pane of the e2e: a user's commands, one task after another\n${paneExports(env)}cd ${shQuote(work)}\n` +
    `wait_for () { while [ ! -e "$1" ]; do sleep 0.05; done; }\n${steps.join('')}`
}

/** The checks of one finished task, from the requests the endpoint got and its session log. */
function taskChecks (check, t, { home, requests, profile, build }) {
  const label = `task ${t.k}`
  check(`${label}: dsh exit 0`, t.exitCode === 0, { exitCode: t.exitCode, stderr: t.stderr.slice(-2000) })
  const own = requests.filter((r) => !r.title && r.body?.messages?.some((m) => m.role === 'user' && messageText(m) === t.task))
  check(`${label}: one model request for the task (plus the session title)`, own.length === 1, own.length)
  const request = own[0]
  t.sessionId = request?.sessionId
  t.request = request && { n: request.n, messages: request.body.messages.length, readings: readingsInRequest(request.body),
    userIndex: request.body.messages.findIndex((m) => m.role === 'user' && messageText(m) === t.task) }
  t.logPath = findSessionLog(join(home, 'sessions'), t.sessionId)
  check(`${label}: a session log for ${t.sessionId}`, t.logPath !== undefined, join(home, 'sessions'))
  const events = t.logPath ? readSessionLog(t.logPath) : []
  t.turn = analyzeTurns(events, 1)[0]
  t.events = events.length
  t.logContext = events.filter((e) => e.seq >= (t.turn.seqs.stepStart ?? 0) && e.seq <= (t.turn.seqs.userMessage ?? -1))
    .map((e) => ({ seq: e.seq, type: e.type, source: e.data?.source && { kind: e.data.source.kind, plugin: e.data.source.plugin, form: e.data.source.form } }))
  turnChecks(check, label, t.turn, t.expected, t.request)
  const answer = t.expected === undefined ? 'No tmux location was given to me.' : `You are in tmux: ${t.expected.split('\n')[1]}.`
  check(`${label}: dsh printed the model's answer`, t.stdout.trim() === answer, { want: answer, got: t.stdout.trim() })
  if (build === 'wasm') {
    // The WebAssembly package, on a machine whose binary package was not installed: no .node mapped.
    check(`${label}: no binary was mapped`, t.probe !== undefined && t.probe.files.length === 0, t.probe)
    t.loadLine = t.stderr.split('\n').find((l) => l.includes('tmux-context: WebAssembly build '))
    const dir = join(profileDir(home), 'node_modules', '@deepseek-ai', 'dsh-tmux-context-wasm32-wasi')
    check(`${label}: the debug load line names the WebAssembly build`, t.loadLine?.endsWith(`(wasm32-wasi) loaded from ${dir}`), t.loadLine)
    return
  }
  if (build === 'none') {
    // No build of the package can load: it says so once, through the harness's logger, and dsh runs.
    check(`${label}: no binary was mapped`, t.probe !== undefined && t.probe.files.length === 0, t.probe)
    t.warning = t.stderr.split('\n').find((l) => l.includes('The plugin is inactive'))
    check(`${label}: the plugin warned that it is inactive and how to install a build`, t.warning?.includes(`dsh-tmux-context-${profile.tarballs.triple} is not installed`) &&
      t.warning.includes('npm install --force'), t.stderr.slice(-2000))
    return
  }
  t.loadLine = nativeLoadLine(t.stderr)
  nativeChecks(check, label, { home, probe: t.probe, stderr: t.stderr, tarballs: profile.tarballs, resolved: profile.resolved })
}

/**
 * Run the CLI scenario once.
 * @param {object} [opts]
 * @param {string[]} [opts.tasks] - the one-shot tasks, in order (default: two).
 * @param {number} [opts.renameBefore=2] - rename the window before this task (0: never).
 * @param {number} [opts.timeoutMs=180000] - bound for the whole run.
 * @param {boolean} [opts.keep=false] - keep the temporary directory (DSH_HOME, logs); tmux is always stopped.
 * @param {'bwrap'|'landlock'} [opts.backend] - the sandbox backend dsh must confine with (lib/sandbox.mjs);
 *   default: whatever this machine gives it.
 * @param {object} [opts.config] - the plugin's config in the profile's row (e.g. `{ panes: true }`).
 * @param {'native'|'wasm'|'none'} [opts.build='native'] - what is installed beside the main tarball: the
 *   binary package, the WebAssembly package (which must then give the reading), or nothing (as on a
 *   platform with no build: dsh must still boot and run the task, with no reading and one warning).
 * @returns {Promise<object>} the report (see README.md); `ok` tells whether every check passed.
 */
export function runCli (opts = {}) {
  const tasks = opts.tasks ?? DEFAULT_TASKS
  const renameBefore = opts.renameBefore ?? 2
  const report = { tmux: undefined, tasks: [], requests: 0 }
  const frame = { prefix: 'dsh-cli-e2e-', dirs: ['run'], timeoutMs: opts.timeoutMs ?? 180_000, keep: opts.keep, env: backendEnv(opts.backend), build: opts.build, config: opts.config }
  return runScenario(frame, report,
    async ({ s, env, tmux, model, check, profile, deadline }) => {
      const script = join(s.root, 'pane.sh')
      writeFileSync(script, paneScript({ env, work: s.work, run: s.run, tasks }))
      report.tmux = { ...tmux.start({ cwd: s.work, command: `sh ${shQuote(script)}` }), version: tmux.version(), renamed: undefined }
      const seenProbes = new Set()
      for (const [i, task] of tasks.entries()) {
        const k = i + 1
        if (k === renameBefore) {
          const to = `e2e-renamed-${tmux.id}`
          tmux.renameWindow(to)
          report.tmux.renamed = { beforeTask: k, from: tmux.window, to }
        }
        const expected = opts.build === 'none' ? undefined : `tmux location (turn 1):\n${tmux.expectedReading({ panes: opts.config?.panes, home: env.HOME })}`
        const started = Date.now()
        writeFileSync(join(s.run, `go-${k}`), '')
        const rc = join(s.run, `rc-${k}`)
        const exitCode = await waitUntil(`task ${k} to finish`, deadline, () => (existsSync(rc) ? Number(readFileSync(rc, 'utf8').trim()) : undefined),
          () => (tmux.paneDead() && !existsSync(rc) ? 'the pane died' : undefined))
        const read = (f) => (existsSync(join(s.run, f)) ? readFileSync(join(s.run, f), 'utf8') : '')
        const probeFile = readdirSync(s.probe).find((f) => !seenProbes.has(f))
        if (probeFile) seenProbes.add(probeFile)
        report.tasks.push({ k, task, command: `dsh --profile ${PROFILE} ${shQuote(task)}`, exitCode, ms: Date.now() - started, expected,
          stdout: read(`out-${k}`), stderr: read(`err-${k}`), probe: probeFile ? JSON.parse(readFileSync(join(s.probe, probeFile), 'utf8')) : undefined })
      }
      report.requests = model.requests.length
      for (const t of report.tasks) taskChecks(check, t, { home: s.home, requests: model.requests, profile, build: opts.build })
      if (opts.backend !== undefined) {
        for (const t of report.tasks) check(`task ${t.k}: dsh confined with ${opts.backend}`, t.probe?.sandbox?.runner === opts.backend, t.probe?.sandbox)
      }
      if (renameBefore >= 2 && renameBefore <= tasks.length) {
        check(`task ${renameBefore}: the reading names the renamed window`, report.tasks[renameBefore - 1].turn?.readings[0]?.includes(JSON.stringify(report.tmux.renamed.to)))
      }
    })
}

await scenarioMain(import.meta.url, {
  tasks: { type: 'string', default: String(DEFAULT_TASKS.length) },
  'rename-before': { type: 'string', default: '2' },
  backend: { type: 'string' },
  build: { type: 'string', default: 'native' },
}, (v) => runCli({
  backend: v.backend,
  build: v.build,
  tasks: Array.from({ length: Number(v.tasks) }, (_, i) => DEFAULT_TASKS[i] ?? `Task ${i + 1}: where am I in tmux? Answer in one line.`),
  renameBefore: Number(v['rename-before']),
  timeoutMs: v.timeoutMs,
  keep: v.keep,
}))
