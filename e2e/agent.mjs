#!/usr/bin/env node
// The agent process of the multi-turn end-to-end scenario (needs Node >= 22: run it with
// e2e/node_modules/.bin/node). It is code that boots the harness itself: dsh-app-boot `boot()` with
// the root config of a dsh profile and the patch layers the `dsh` launcher stacks (dsh-base, then
// dsh-headless, then the profile's cordis.patch.yml, then $DSH_HOME/cordis.patch.yml), then
// overlay.patch.yml. Bare plugin names resolve from the profile, where `dsh plugin add` installed the
// packed tarballs. The model is the composition's own DeepSeek adapter (DEEPSEEK_BASE_URL).
// It then drives ONE agent through the core registry for N turns in ONE session, exactly as the
// headless runner drives its single turn (agents.create + followup + whenIdle).
//
// Between turns an outside orchestrator may change tmux state: before turn k this process writes
// `<sync>/ready-<k>` and waits until `<sync>/go-<k>` exists. When done it writes `<sync>/result.json`
// ({ ok, sessionId, turns: [{ turn, text, reason, ... }], ... }).
//
// For the sandbox checks it also records the plugin's query calls through `ctx.shell` (the specs
// `resolve()` returned and `run()` got; the calls themselves go on unchanged), the backend the
// sandbox provider chose, and after the turns runs a `touch` in the workspace with the spec the
// query ran (and, as the control, with the spec the executor first resolved): `result.sandbox`,
// `result.queries`, `result.writeProbe`.
//
// With --compact-before K it runs `/compact` through the composition's command registry before turn K;
// each --overlay FILE is one more patch layer, applied last (e.g. a small context window).
//
// Usage: node agent.mjs --sync DIR --profile-dir DIR [--turns N] [--go-timeout-ms MS] [--compact-before K] [--overlay FILE]...
// Environment: DSH_HOME (sessions land in $DSH_HOME/sessions), DEEPSEEK_BASE_URL, DEEPSEEK_API_KEY.
import { randomUUID } from 'node:crypto'
import { existsSync, writeFileSync, appendFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'

import { boot, healProfilesModuleFallback, loadLayeredEnv, loadOptionalPatches, loadOverlayPatches } from '@deepseek-ai/dsh-app-boot'
import { resolveDshHome } from '@deepseek-ai/dsh-home-paths'
import { DSH_LAUNCH_ENVIRONMENT_KEY } from '@deepseek-ai/dsh-launch-environment'
import { provideCmdline } from '@deepseek-ai/dsh-cmdline'
import { installModelSelection } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { SessionId } from '@deepseek-ai/dsh-session'

const BIN = 'dsh-e2e'
const here = dirname(fileURLToPath(import.meta.url))
const modules = join(here, 'node_modules')

const { values: args } = parseArgs({
  options: {
    sync: { type: 'string' },
    'profile-dir': { type: 'string' },
    turns: { type: 'string', default: '3' },
    'go-timeout-ms': { type: 'string', default: '60000' },
    'no-probe': { type: 'boolean', default: false },
    'compact-before': { type: 'string', default: '0' },
    overlay: { type: 'string', multiple: true, default: [] },
  },
})
if (!args.sync || !args['profile-dir']) {
  process.stderr.write('agent.mjs: --sync DIR and --profile-dir DIR are required\n')
  process.exit(2)
}
const syncDir = resolve(args.sync)
const profileDir = resolve(args['profile-dir'])
const turns = Number(args.turns)
const goTimeoutMs = Number(args['go-timeout-ms'])
const compactBefore = Number(args['compact-before'])
if (!Number.isSafeInteger(turns) || turns < 1) {
  process.stderr.write(`agent.mjs: --turns must be a positive integer, got ${args.turns}\n`)
  process.exit(2)
}

if (Number(process.versions.node.split('.')[0]) < 22) {
  process.stderr.write(`agent.mjs: the dsh composition needs Node >= 22 (this is ${process.version}); run it with e2e/node_modules/.bin/node\n`)
  process.exit(2)
}

const t0 = Date.now()
function log (line) {
  const text = `[agent +${Date.now() - t0}ms] ${line}\n`
  process.stderr.write(text)
  try { appendFileSync(join(syncDir, 'agent.log'), text) } catch {}
}

/** Write a file atomically, so the orchestrator never reads half of it. */
function publish (file, text) {
  const tmp = join(syncDir, `.${file}.${process.pid}.tmp`)
  writeFileSync(tmp, text)
  renameSync(tmp, join(syncDir, file))
}

async function waitForFile (path, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${path}`)
    await sleep(25)
  }
}

/**
 * Run the plugin's tmux query (CONTRACT.md's command, for this pid) once
 * through the composition's own `ctx.shell` (dsh-bash-sandbox), outside any
 * agent, and report what the sandboxed shell sees. Diagnostic only: it does not
 * touch the session log.
 */
async function probeShell (shell) {
  if (!shell) return { shell: false }
  const format = ['#{session_name}', '#{window_index}', '#{window_name}', '#{pane_index}', '#{pane_id}',
    '#{window_active}', '#{pane_active}', '#{window_layout}'].join('\\t')
  const command = [
    '[ -n "$TMUX_PANE" ] || { echo "no TMUX_PANE" >&2; exit 1; }',
    `self_tty=$(ps -o tty= -p ${process.pid} | tr -d ' ')`,
    '[ -n "$self_tty" ] || { echo "ps: no tty for the pid" >&2; exit 1; }',
    'pane_tty=$(tmux display-message -t "$TMUX_PANE" -p \'#{pane_tty}\') || exit 1',
    '[ "$pane_tty" = "/dev/$self_tty" ] || { echo "tty mismatch: $pane_tty vs /dev/$self_tty" >&2; exit 1; }',
    `exec tmux display-message -t "$TMUX_PANE" -p '${format}'`,
  ].join('\n')
  try {
    const r = await shell.run(shell.resolve({ command, signal: AbortSignal.timeout(10_000) }))
    return { shell: shell.constructor?.name, sandboxMode: shell.sandboxMode, exitCode: r.exitCode, signal: r.signal, timedOut: r.timedOut, stdout: r.stdout?.text, stderr: r.stderr?.text, sandbox: r.sandbox }
  } catch (error) {
    return { shell: shell.constructor?.name, error: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * Record the plugin's own tmux queries through `ctx.shell` (a test instrument: the calls go on
 * unchanged): each `resolve()` result and each spec handed to `run()` whose command asks tmux for
 * `#{pane_tty}` (the plugin's query, native or JavaScript). Installed after probeShell, so only the
 * plugin's calls are seen.
 */
function recordQueries (shell) {
  const calls = { resolved: [], ran: [] }
  if (!shell) return calls
  const isQuery = (command) => typeof command === 'string' && command.includes('#{pane_tty}')
  const { resolve, run } = shell
  shell.resolve = function (request) {
    const spec = resolve.call(this, request)
    if (isQuery(request?.command)) calls.resolved.push(spec)
    return spec
  }
  shell.run = function (spec) {
    if (isQuery(spec?.command)) calls.ran.push(spec)
    return run.call(this, spec)
  }
  return calls
}

/** A spec as JSON can show it (no signal, the command shortened). */
const specShown = (spec) => spec && { ...spec, signal: undefined, command: `${String(spec.command).slice(0, 40)}…` }

/**
 * Whether the policy the plugin's query ran under allows writes: `touch` a file in the workspace root
 * through the same `ctx.shell`, with the very spec the query ran (only its command and signal replaced),
 * and, as the control, with the spec the executor resolved first for the query (the deployment policy).
 */
async function writeProbe (shell, calls) {
  const ran = calls.ran[0]
  if (!shell || ran === undefined) return { skipped: 'the plugin ran no query' }
  const attempt = async (label, spec) => {
    const root = spec.sandboxPolicy?.workspaceRoot ?? process.cwd()
    const file = join(root, `sandbox-write-probe-${label}-${process.pid}`)
    const command = `touch '${file.replaceAll("'", `'\\''`)}'`
    try {
      const r = await shell.run({ ...spec, command, signal: AbortSignal.timeout(10_000) })
      const created = existsSync(file)
      if (created) rmSync(file)
      return { command, policy: spec.sandboxPolicy, exitCode: r.exitCode, stderr: r.stderr?.text, sandbox: r.sandbox, created }
    } catch (error) {
      return { command, policy: spec.sandboxPolicy, error: error instanceof Error ? error.message : String(error), created: existsSync(file) }
    }
  }
  return {
    query: await attempt('query', ran),
    control: calls.resolved[0] === undefined ? undefined : await attempt('control', calls.resolved[0]),
  }
}

const result = { ok: false, pid: process.pid, sessionId: undefined, turns: [], exitRequested: undefined, error: undefined }

async function main () {
  const taskOf = (k) => `e2e turn ${k}: where am I in tmux? Answer in one line.`
  const task = taskOf(1)
  const patches = [
    ...loadOverlayPatches(BIN, join(modules, '@deepseek-ai/dsh-base/cordis.patch.yml')),
    ...loadOverlayPatches(BIN, join(modules, '@deepseek-ai/dsh-headless/cordis.patch.yml')),
    ...loadOptionalPatches(BIN, join(profileDir, 'cordis.patch.yml')) ?? [],
    ...loadOptionalPatches(BIN, join(resolveDshHome(), 'cordis.patch.yml')) ?? [],
    ...loadOverlayPatches(BIN, join(here, 'overlay.patch.yml')),
    ...args.overlay.flatMap((file) => loadOverlayPatches(BIN, resolve(file))),
  ]
  // As the dsh launcher does on every boot: $DSH_HOME/profiles/node_modules links the packages of the dsh
  // installation, so bare names of the bundles' rows resolve from the profile too.
  healProfilesModuleFallback(join(modules, '@deepseek-ai/dsh/package.json'))
  // The root config is the profile's, as with dsh: relative plugin names resolve in the profile.
  const rootConfig = join(profileDir, 'cordis.yml')
  writeFileSync(rootConfig, '[]\n')
  log(`booting (node ${process.version}, cwd ${process.cwd()}, DSH_HOME ${process.env.DSH_HOME})`)
  const root = await boot(BIN, rootConfig, patches, (host) => {
    host.provide(DSH_LAUNCH_ENVIRONMENT_KEY, loadLayeredEnv(BIN))
    provideCmdline(host, {
      args: [task],
      exit: (code) => {
        result.exitRequested = code
        log(`appExit(${code}) requested by the tree`)
      },
    })
  }, pathToFileURL(join(profileDir, 'package.json')).href)
  log('booted')

  try {
    const agents = root.get('agents')
    const defaultModel = root.get('agentDefaultModel')
    const sessions = root.get('sessions')
    if (!agents || !defaultModel || !sessions) throw new Error('the booted tree has no agents/agentDefaultModel/sessions service')

    // Same creation as dsh-headless's runner.
    const selection = defaultModel.currentSelection()
    const { agent } = await agents.create({
      sessionId: SessionId(`session-${randomUUID()}`),
      meta: { cwd: process.cwd() },
      agentOptions: { provider: selection.provider, model: selection.model },
      setup: (agentCtx) => {
        installModelSelection(agentCtx, { current: selection, assembled: undefined })
      },
    })
    result.sessionId = String(agent.id)
    result.selection = { provider: selection.provider, model: selection.model }
    log(`agent ${result.sessionId} created with ${selection.provider}/${selection.model}`)
    await agent.whenIdle()
    if (!args['no-probe']) result.shellProbe = await probeShell(root.get('shell'))
    const queries = recordQueries(root.get('shell'))

    for (let k = 1; k <= turns; k++) {
      publish(`ready-${k}`, JSON.stringify({ turn: k, sessionId: result.sessionId, pid: process.pid }) + '\n')
      log(`ready for turn ${k}; waiting for go-${k}`)
      await waitForFile(join(syncDir, `go-${k}`), goTimeoutMs)
      if (k === compactBefore) {
        // As a user's `/compact` between turns: the composition's own command registry runs it.
        const ran = await root.get('commands').execute(agent, '/compact', [], AbortSignal.timeout(60_000))
        result.compact = { beforeTurn: k, result: ran?.result }
        log(`/compact before turn ${k}: ${JSON.stringify(ran?.result)}`)
        await sessions.flush(agent.session)
      }
      const firstSeq = agent.session.seq
      const text = taskOf(k)
      agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }))
      await agent.whenIdle()
      await sessions.flush(agent.session)
      let reason
      for (const event of agent.session.events) {
        if (event.seq >= firstSeq && event.type === 'turn/end') reason = event.data.reason?.kind
      }
      result.turns.push({ turn: k, text, firstSeq, lastSeq: agent.session.seq, reason })
      publish(`done-${k}`, JSON.stringify({ turn: k, reason }) + '\n')
      log(`turn ${k} idle (turn/end reason ${reason})`)
    }
    await sessions.flush(agent.session)
    // The sandbox backend the provider chose (dsh-sandbox-local keeps its chain verdict once a call was confined).
    const verdict = root.get('sandbox')?.selectedRunner
    result.sandbox = typeof verdict === 'object' ? verdict : { runner: verdict }
    result.queries = { resolved: queries.resolved.map(specShown), ran: queries.ran.map(specShown) }
    result.writeProbe = await writeProbe(root.get('shell'), queries)
    result.ok = result.turns.length === turns && result.turns.every((t) => t.reason === 'completed')
  } finally {
    // Dispose the tree (telemetry and other services drain here), bounded.
    const disposed = await Promise.race([
      root.fiber.dispose().then(() => true, (error) => { log(`dispose failed: ${error?.message ?? error}`); return false }),
      sleep(5000).then(() => false),
    ])
    log(`tree disposed: ${disposed}`)
  }
}

let code = 1
try {
  await main()
  code = result.ok ? 0 : 1
} catch (error) {
  // A failed boot wraps the failing rows' errors (AggregateError) in its cause.
  const inner = [error?.cause, error?.cause?.cause].flatMap((c) => c?.errors ?? []).map((e) => e?.stack ?? String(e))
  result.error = [error instanceof Error ? (error.stack ?? error.message) : String(error), ...inner].join('\n')
  log(`failed: ${result.error}`)
}
try { publish('result.json', JSON.stringify(result, null, 2) + '\n') } catch (error) { log(`cannot write result.json: ${error}`) }
log(`exiting with ${code}`)
process.exit(code)
