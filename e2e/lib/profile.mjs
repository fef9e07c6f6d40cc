// The user's install, as README "Use" tells it: `dsh plugin --profile <p> add` with both packed
// tarballs in one command, then the `- insert:` rows in the profile's own patch layer
// ($DSH_HOME/profiles/<p>/cordis.patch.yml). Plus, for the checks only, a native probe row in the
// home-level layer ($DSH_HOME/cordis.patch.yml).
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { E2E_DIR, PROFILE, REPO_DIR } from './env.mjs'

export const PACKS_DIR = join(REPO_DIR, '.tmp', 'packs')
export const MAIN_TARBALL = 'dsh-tmux-context.tgz'

/** The napi-rs triples that can run here, best first (as index.js tries them). */
function localTriples () {
  const { platform, arch } = process
  if (platform !== 'linux') return [`${platform}-${arch}`]
  const gnu = Boolean(process.report?.getReport?.()?.header?.glibcVersionRuntime)
  return gnu ? [`linux-${arch}-gnu`, `linux-${arch}-musl`] : [`linux-${arch}-musl`]
}

/**
 * The tarballs to install, from what `npm run tarballs` left in .tmp/packs/: the main package and
 * the binary package of this machine (`dsh-tmux-context-<triple>.tgz`; others may be there too).
 * @returns {{ main: string, platform: string, triple: string, available: string[] }} absolute paths.
 */
export function packedTarballs (dir = PACKS_DIR) {
  const files = existsSync(dir) ? readdirSync(dir) : []
  const byTriple = new Map(files.map((f) => [/^dsh-tmux-context-(.+)\.tgz$/.exec(f)?.[1], f]).filter(([t]) => t))
  if (!files.includes(MAIN_TARBALL)) throw new Error(`no ${MAIN_TARBALL} in ${dir}: run \`npm run tarballs\` first`)
  const triple = localTriples().find((t) => byTriple.has(t))
  if (!triple) throw new Error(`no binary package for this machine (${localTriples().join(' or ')}) in ${dir}; found: ${[...byTriple.keys()].join(', ') || 'none'}`)
  return { main: join(dir, MAIN_TARBALL), platform: join(dir, byTriple.get(triple)), wasm: join(dir, 'dsh-tmux-context-wasm32-wasi.tgz'), triple, available: [...byTriple.keys()] }
}

/**
 * The rows README "Use" puts in the profile's patch layer: the log exporter, and the plugin with its
 * logger raised to debug, so that its load line is kept in memory until the exporter starts (the rows
 * start concurrently).
 */
export const userPatch = (name = '@deepseek-ai/dsh-tmux-context', config = {}) => `- insert:
    - id: log-to-stderr
      name: ./log-to-stderr.mjs
    - id: tmux-context
      name: '${name}'
${Object.keys(config).length ? `      config:\n${Object.entries(config).map(([k, v]) => `        ${k}: ${JSON.stringify(v)}\n`).join('')}` : ''}      intercept:
        logger:
          level: 3
`
export const USER_PATCH = userPatch()

/**
 * For comparison runs only: the JavaScript package (the root's devDependency `dsh-tmux-context-js`,
 * `@deepseek-ai/dsh-tmux-context@0.1.0-rc.8`), mounted by file URL in the same row instead of the name.
 */
export const JS_PACKAGE_URL = pathToFileURL(join(REPO_DIR, 'node_modules', 'dsh-tmux-context-js', 'lib', 'index.js')).href

export const profileDir = (home, profile = PROFILE) => join(home, 'profiles', profile)

/**
 * Step 1: \`dsh plugin --profile <p> add ./.tmp/packs/<main> ./.tmp/packs/<platform>\`, run from the
 * repository root (dsh anchors \`./\` paths to the invoking directory).
 */
export function installPlugin ({ env, tarballs, profile = PROFILE, build = 'native' }) {
  const second = { native: [tarballs.platform], wasm: [tarballs.wasm], none: [] }[build]
  const specs = [tarballs.main, ...second].map((p) => `./${relative(REPO_DIR, p)}`)
  const args = ['plugin', '--profile', profile, 'add', ...specs]
  const t0 = Date.now()
  const r = spawnSync('dsh', args, { cwd: REPO_DIR, env, encoding: 'utf8', timeout: 180_000 })
  return {
    command: `dsh ${args.join(' ')}`,
    status: r.status,
    error: r.error?.message,
    output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim(),
    warnings: (r.stderr ?? '').split('\n').filter((l) => l.startsWith('dsh: warning:')),
    ms: Date.now() - t0,
  }
}

/**
 * Step 2: the user's rows, and the exporter file they name, in the profile directory. `plugin: 'js'`
 * (comparison runs) mounts the JavaScript package in the row instead.
 */
export function mountInProfile ({ home, profile = PROFILE, plugin = 'native', config = {} }) {
  const dir = profileDir(home, profile)
  copyFileSync(join(E2E_DIR, 'log-to-stderr.mjs'), join(dir, 'log-to-stderr.mjs'))
  const file = join(dir, 'cordis.patch.yml')
  const text = plugin === 'js' ? userPatch(JS_PACKAGE_URL, config) : userPatch(undefined, config)
  writeFileSync(file, text)
  return { file, text }
}

/** For the checks: the native probe row in the home-level layer (applied after the profile's rows). */
export function mountProbe ({ home, probeDir }) {
  writeFileSync(join(home, 'cordis.patch.yml'), `- insert:
    - id: e2e-native-probe
      name: ${JSON.stringify(pathToFileURL(join(E2E_DIR, 'native-probe.mjs')).href)}
      config:
        dir: ${JSON.stringify(probeDir)}
`)
}

/** What the native probe wrote, one entry per dsh process that exited (see native-probe.mjs). */
export function probeResults (probeDir) {
  return readdirSync(probeDir).filter((f) => /^native-probe-\d+\.json$/.test(f))
    .map((f) => JSON.parse(readFileSync(join(probeDir, f), 'utf8')))
}

/** The version of `@deepseek-ai/dsh-tmux-context` a bare name resolves to from the profile (README's command). */
export function resolvedVersion (home, node, profile = PROFILE) {
  const r = spawnSync(node, ['-p', "const p = require.resolve('@deepseek-ai/dsh-tmux-context/package.json'); require(p).version + '  ' + p"],
    { cwd: profileDir(home, profile), encoding: 'utf8' })
  const [version, path] = r.stdout.trim().split(/\s+/)
  return { version, path }
}

/**
 * The load line the plugin logs at debug level, and what it must say for the installed binary package:
 * `tmux-context: native build <version> (<triple>) loaded from <directory of the .node>`.
 */
export function nativeLoadLine (stderr) {
  return stderr.split('\n').find((l) => l.includes('tmux-context: native build ')) ?? undefined
}

/** Whether the installed package logs the load line (the line arrives with the entry that logs it). */
export function logsLoadLine (home, profile = PROFILE) {
  const entry = join(profileDir(home, profile), 'node_modules', '@deepseek-ai', 'dsh-tmux-context', 'index.js')
  return existsSync(entry) && readFileSync(entry, 'utf8').includes('native build')
}

/**
 * Steps 1 and 2 for a scenario, with their checks: install both tarballs into a fresh profile (`build`:
 * the binary package of this machine, `'wasm'` the WebAssembly package instead, `'none'` only the main
 * one: a platform without a build), mount the rows, add the probe row, and resolve the package from
 * the profile as README's command does.
 */
export function setUpProfile (check, { home, env, probeDir, node, plugin = 'native', build = 'native', config, profile = PROFILE }) {
  const tarballs = packedTarballs()
  const install = installPlugin({ env, tarballs, build, profile })
  check('dsh plugin add: exit 0', install.status === 0, install.status === 0 ? undefined : install.error ?? install.output)
  if (install.status !== 0) throw new Error(`\`${install.command}\` failed (${install.status}): ${install.error ?? install.output}`)
  const manifest = JSON.parse(readFileSync(join(profileDir(home, profile), 'package.json'), 'utf8'))
  const names = ['@deepseek-ai/dsh-tmux-context', ...{ native: [`@deepseek-ai/dsh-tmux-context-${tarballs.triple}`], wasm: ['@deepseek-ai/dsh-tmux-context-wasm32-wasi'], none: [] }[build]]
  check('dsh plugin add: the packages are dependencies of the profile', names.every((n) => manifest.dependencies?.[n]), manifest.dependencies)
  check('dsh plugin add: plain dependencies, not bundle layers (the `declares no dsh.bundle` warnings)',
    names.every((n) => install.warnings.some((w) => w.includes(`${n} declares no dsh.bundle`))) && !names.some((n) => manifest.dsh?.profile?.bundles?.includes(n)),
    { warnings: install.warnings, bundles: manifest.dsh?.profile?.bundles })
  const patch = mountInProfile({ home, plugin, config, profile })
  mountProbe({ home, probeDir })
  const resolved = resolvedVersion(home, node, profile)
  check('the package resolved from the profile is the native build (version ends in -native.N)', /-native\.\d+$/.test(resolved.version ?? '') &&
    resolved.path?.startsWith(join(profileDir(home, profile), 'node_modules') + '/'), resolved)
  return { tarballs, install, patch, resolved, profile }
}

/**
 * The checks that one dsh process ran the native package installed in the profile: the binary it had
 * mapped (native probe) and, where the package logs it, the debug load line that names it.
 */
export function nativeChecks (check, label, { home, probe, stderr, tarballs, resolved, profile = PROFILE }) {
  const nodeFiles = probe?.files ?? []
  const binaryDir = join(profileDir(home, profile), 'node_modules', '@deepseek-ai', `dsh-tmux-context-${tarballs.triple}`)
  check(`${label}: the process mapped the native binary from the profile`, nodeFiles.length === 1 && nodeFiles[0].startsWith(binaryDir + '/'), probe)
  if (!logsLoadLine(home, profile)) return
  const line = nativeLoadLine(stderr)
  const want = `tmux-context: native build ${resolved.version} (${tarballs.triple}) loaded from ${binaryDir}`
  check(`${label}: the debug load line names the native build`, line?.endsWith(want), { want, got: line })
}
