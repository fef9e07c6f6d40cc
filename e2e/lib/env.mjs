// Paths, environment and lifetime helpers shared by the end-to-end scenarios (Node builtins only, so the
// orchestrators run on the machine's Node 20 as well as on the Node 22 of e2e/node_modules).
import { mkdtempSync, realpathSync, rmSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'

export const E2E_DIR = dirname(dirname(fileURLToPath(import.meta.url)))
export const REPO_DIR = dirname(E2E_DIR)
/** `dsh`, `node` (22) and `pnpm`, installed from npm by e2e/package.json. */
export const BIN_DIR = join(E2E_DIR, 'node_modules', '.bin')
export const NODE22 = join(BIN_DIR, 'node')
/** The profile both scenarios install into and run: `headless` initialises from dsh's template. */
export const PROFILE = 'headless'

export function shQuote (s) {
  return `'${String(s).replaceAll("'", `'\\''`)}'`
}

/**
 * The environment a user's shell would give `dsh`: ours without an outer tmux's variables and without
 * any DSH_* setting that would change the composition, plus the scenario's own settings.
 * @param {Record<string, string>} settings - DSH_HOME, DEEPSEEK_BASE_URL, ...
 */
export function userEnv (settings) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DSH_') && k !== 'TMUX' && k !== 'TMUX_PANE'))
  return { ...env, PATH: `${BIN_DIR}:${env.PATH ?? '/usr/bin:/bin'}`, DSH_TELEMETRY_DISABLED: '1', ...settings }
}

/** Cleanups of runs in progress, run by the CLI entries' signal handlers. */
const active = new Set()

/**
 * A private temporary directory (realpath: dsh derives the session-log folder from the cwd) with the
 * sub-directories a scenario needs, and a cleanup registry that runs on every path.
 */
export function scratch (prefix, subdirs, keep = false) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  const dirs = Object.fromEntries(subdirs.map((d) => [d, join(root, d)]))
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true })
  const cleanups = []
  const cleanup = () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try { fn() } catch {}
    }
    if (!keep) rmSync(root, { recursive: true, force: true })
  }
  active.add(cleanup)
  return {
    root,
    ...dirs,
    onCleanup: (fn) => cleanups.push(fn),
    cleanup: () => { active.delete(cleanup); cleanup() },
  }
}

/** For a CLI entry: clean up every run in progress on SIGINT/SIGTERM/SIGHUP, then exit. */
export function cleanupOnSignals () {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.on(signal, () => {
      for (const cleanup of active) cleanup()
      process.exit(code)
    })
  }
}

/**
 * Poll `ready()` until it returns a value other than `undefined`; `failed()` may return a reason to
 * stop early (the process died, ...). Throws on the deadline.
 */
export async function waitUntil (what, deadline, ready, failed = () => undefined) {
  for (;;) {
    const value = ready()
    if (value !== undefined) return value
    const reason = failed()
    if (reason) throw new Error(`${reason} before ${what}`)
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** Collects named pass/fail checks for a report. */
export function checkList () {
  const list = []
  const check = (name, pass, detail) => list.push({ name, pass: Boolean(pass), ...(detail === undefined ? {} : { detail }) })
  return { list, check }
}
