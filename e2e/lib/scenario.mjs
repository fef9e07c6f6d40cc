// The frame both scenarios run in: a scratch directory with a fresh DSH_HOME, the local model endpoint,
// the user's install into the profile (lib/profile.mjs), a private tmux server, and a report whose
// checks decide `ok`; everything is stopped and removed on every path. Plus the CLI entry of a scenario.
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { NODE22, checkList, cleanupOnSignals, scratch, shQuote, userEnv } from './env.mjs'
import { startModelServer } from './model.mjs'
import { setUpProfile } from './profile.mjs'
import { PrivateTmux } from './tmux.mjs'

/** The variables the pane's shell exports before it runs anything (a login shell may reset PATH). */
const PANE_VARS = ['PATH', 'DSH_HOME', 'DSH_TELEMETRY_DISABLED', 'DEEPSEEK_BASE_URL', 'DEEPSEEK_API_KEY', 'TMPDIR', 'DSH_PERMISSION_MODE']
export const paneExports = (env) => PANE_VARS.filter((k) => env[k] !== undefined).map((k) => `export ${k}=${shQuote(env[k])}\n`).join('')

/**
 * Run `body` inside the frame.
 * @param {object} opts
 * @param {string} opts.prefix - of the scratch directory's name.
 * @param {string[]} opts.dirs - its sub-directories besides home, work, tmp and probe.
 * @param {number} opts.timeoutMs - bound for the whole run (`deadline` for body).
 * @param {boolean} [opts.keep] - keep the scratch directory.
 * @param {Record<string,string>} [opts.env] - more environment (e.g. DSH_PERMISSION_MODE, a PATH).
 * @param {'native'|'js'} [opts.plugin='native'] - which package the profile's row mounts ('js': comparison runs).
 * @param {object} [opts.model] - the local endpoint's options (lib/model.mjs `startModelServer`).
 * @param {'native'|'wasm'|'none'} [opts.build='native'] - which build to install beside the main tarball
 *   (lib/profile.mjs `setUpProfile`).
 * @param {object} [opts.config] - the plugin's `config:` in the profile's row (e.g. `{ panes: true }`).
 * @param {string} [opts.profile='headless'] - the profile to install into (`web`: the interactive one).
 * @param {object} report - filled in: ok, error, elapsedMs, dshHome, endpoint, install, patch, resolved, checks, tmpDir.
 * @param {(frame: object) => Promise<void>} body - gets { s, env, tmux, model, check, profile, deadline }.
 * @param {(s: object) => void} [onError] - adds diagnostics to the report before the scratch directory goes.
 */
export async function runScenario (opts, report, body, onError = () => {}) {
  const t0 = Date.now()
  const s = scratch(opts.prefix, ['home', 'work', 'tmp', 'probe', ...opts.dirs], opts.keep)
  const { list, check } = checkList()
  Object.assign(report, { ok: false, error: undefined, elapsedMs: undefined, dshHome: s.home, checks: list, tmpDir: opts.keep ? s.root : undefined })
  const model = await startModelServer(opts.model)
  const env = userEnv({ DSH_HOME: s.home, TMPDIR: s.tmp, DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'sk-local-mock', ...opts.env })
  const tmux = new PrivateTmux({ env })
  s.onCleanup(() => tmux.kill())
  try {
    report.endpoint = model.url
    const profile = setUpProfile(check, { home: s.home, env, probeDir: s.probe, node: NODE22, plugin: opts.plugin, build: opts.build, config: opts.config, profile: opts.profile })
    Object.assign(report, { install: profile.install, patch: profile.patch, resolved: profile.resolved })
    await body({ s, env, tmux, model, check, profile, deadline: t0 + opts.timeoutMs })
    report.ok = list.every((c) => c.pass)
  } catch (error) {
    report.error = error instanceof Error ? error.message : String(error)
    report.paneCapture = tmux.capture()
    try { onError(s) } catch {}
  } finally {
    await model.close()
    s.cleanup()
    report.elapsedMs = Date.now() - t0
  }
  report.ok &&= report.error === undefined
  return report
}

/**
 * When `moduleUrl` is the script node runs: parse `options` (plus --timeout-ms and --keep), clean up on
 * signals, run, print the JSON report, exit 0 only when it is ok.
 */
export async function scenarioMain (moduleUrl, options, run) {
  if (!process.argv[1] || realpathSync(process.argv[1]) !== fileURLToPath(moduleUrl)) return
  const { values } = parseArgs({ options: { ...options, 'timeout-ms': { type: 'string' }, keep: { type: 'boolean', default: false } } })
  cleanupOnSignals()
  const report = await run({ ...values, timeoutMs: values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']) })
  process.stdout.write(JSON.stringify(report, null, 2) + '\n')
  process.exitCode = report.ok ? 0 : 1
}
