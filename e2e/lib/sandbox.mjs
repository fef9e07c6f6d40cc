// The sandbox backend a scenario's dsh process confines `ctx.shell` with. The shipped composition's
// `ctx.sandbox` is dsh-sandbox-local: no env var or config picks a Linux backend (its `runnerCommand`
// config replaces the chain with a bwrap-dialect command); it probes its chain, bwrap then Landlock,
// once, and keeps the first that works. So: `bwrap` needs a working `bwrap` on PATH (Debian's
// `bubblewrap`, which scripts/install.sh installs), and `landlock` puts the stand-in `no-bwrap/bwrap`
// first on PATH, which fails the probe. Which one the provider really chose is reported by agent.mjs
// (`result.sandbox`, the provider's verdict).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { BIN_DIR, E2E_DIR } from './env.mjs'

export const BACKENDS = ['bwrap', 'landlock']
export const STAND_IN_DIR = join(E2E_DIR, 'no-bwrap')

/** Whether a working bwrap is on PATH: the provider's own probe, run here. */
export function bwrapWorks (env = process.env) {
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--die-with-parent', '--', 'true'],
    { env, stdio: 'ignore', timeout: 5000 })
  return r.status === 0
}

/**
 * The environment settings that make the provider choose `backend` (undefined: leave it to the machine).
 * Throws when `bwrap` is asked for and the machine cannot give it.
 */
export function backendEnv (backend) {
  if (backend === undefined) return {}
  if (!BACKENDS.includes(backend)) throw new Error(`unknown sandbox backend ${JSON.stringify(backend)} (${BACKENDS.join(' or ')})`)
  if (backend === 'landlock') return { PATH: `${STAND_IN_DIR}:${BIN_DIR}:${process.env.PATH ?? '/usr/bin:/bin'}` }
  if (!bwrapWorks()) throw new Error('the bwrap backend needs a working `bwrap` on PATH: apt-get install bubblewrap (scripts/install.sh does)')
  return {}
}
