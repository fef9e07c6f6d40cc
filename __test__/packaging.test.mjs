// Packaging: the `npm pack` tarballs install together into an empty folder and import by name; the
// packed package lists the eleven binary packages and the WebAssembly one as optional dependencies,
// and this machine's binary package and the WebAssembly one (what npm test builds) hold their build
// (every other platform's: __test__/platforms.test.mjs, npm run test:platforms); loading: a binary that
// is installed but does not load is a clear error, while no build at all (binary package missing,
// platform without a binary, WebAssembly package missing or unable to run) imports fine and warns
// once at apply, registering nothing; the WebAssembly package loads where no native binary is;
// the types compile for a TypeScript consumer; both READMEs stay paired; nothing is written to
// stdout or stderr directly.
import { describe, expect, it, vi } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hostPlatform } from '../scripts/targets.mjs'
import { makeAgent, mount, native, preStep } from './harness.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const packs = join(root, '.tmp', 'packs')

describe('packed install', () => {
  it('both tarballs install into an empty folder with cordis and import by name', () => {
    expect(existsSync(join(packs, 'dsh-tmux-context.tgz')), 'run scripts/pack.sh (npm test does)').toBe(true)
    const dir = mkdtempSync(join(tmpdir(), 'dshtc-pack-'))
    try {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
      execFileSync(
        'npm',
        ['install', '--no-audit', '--no-fund', '--prefer-offline', join(packs, 'dsh-tmux-context.tgz'), join(packs, 'dsh-tmux-context-linux-x64-gnu.tgz'), '@deepseek-ai/cordis@4.0.4'],
        { cwd: dir, stdio: 'pipe' },
      )
      const script = `
        const m = await import('@deepseek-ai/dsh-tmux-context')
        const inv = await import('@deepseek-ai/dsh-tmux-context/invariant')
        const { Context } = await import('@deepseek-ai/cordis')
        const calls = []
        m.apply({ on: (...a) => calls.push(a[0]) }, { refreshIntervalMs: 0 })
        let error
        try { m.apply({ on() {} }, { refreshIntervalMs: -1 }) } catch (e) { error = e.constructor.name + ': ' + e.message }
        console.log(JSON.stringify({ name: m.name, inject: m.inject, calls, error, inv: inv.name, config: m.Config({ queryTimeoutMs: 5 }), ctx: typeof Context }))`
      const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' }))
      expect(out).toEqual({
        name: 'tmux-context',
        inject: ['agents'],
        calls: ['agent/pre-step'],
        error: "TypeError: tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1 (change it under config: of the tmux-context row in your profile's cordis.patch.yml, or cordis.yml)",
        inv: 'tmux-context-invariant',
        config: { queryTimeoutMs: 5 },
        ctx: 'function',
      })
      const installed = JSON.parse(readFileSync(join(dir, 'node_modules/@deepseek-ai/dsh-tmux-context/package.json'), 'utf8'))
      expect(installed.version).toMatch(/native/)
      expect(existsSync(join(dir, 'node_modules/@deepseek-ai/dsh-tmux-context/dsh-tmux-context.linux-x64-gnu.node'))).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it('the packed package names the eleven binary packages and the WebAssembly one as optional dependencies; the lockfile names none', () => {
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', join(packs, 'dsh-tmux-context.tgz'), 'package/package.json'], { encoding: 'utf8' }))
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const platforms = ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64',
      'win32-x64-msvc', 'win32-arm64-msvc', 'linux-arm-gnueabihf', 'freebsd-x64', 'linux-riscv64-gnu', 'wasm32-wasi']
    expect(manifest.optionalDependencies).toEqual(Object.fromEntries(platforms.map((p) => [`${pkg.name}-${p}`, pkg.version])))
    expect(manifest.files).toContain('binding.cjs')
    expect(manifest.files).toContain('loader-errors.cjs')
    // npm ci must keep working: the repository's lockfile holds no package that is not published.
    expect(pkg.optionalDependencies).toBeUndefined()
    expect(readFileSync(join(root, 'package-lock.json'), 'utf8')).not.toContain('@deepseek-ai/dsh-tmux-context-')
  })

  // The other platforms' tarballs: __test__/platforms.test.mjs (npm run test:platforms builds them).
  it("this machine's binary package and the WebAssembly one each hold their build, the README and package.json", () => {
    const listing = (p) => execFileSync('tar', ['-tzf', join(packs, `dsh-tmux-context-${p}.tgz`)], { encoding: 'utf8' }).split('\n').filter(Boolean).sort()
    const host = hostPlatform()
    expect(existsSync(join(packs, `dsh-tmux-context-${host}.tgz`)), `dsh-tmux-context-${host}.tgz`).toBe(true)
    expect(listing(host)).toEqual(['package/README.md', `package/dsh-tmux-context.${host}.node`, 'package/package.json'])
    expect(listing('wasm32-wasi')).toEqual([
      'package/README.md', 'package/dsh-tmux-context.wasi-browser.js', 'package/dsh-tmux-context.wasi.cjs', 'package/dsh-tmux-context.wasi.d.cts',
      'package/dsh-tmux-context.wasm32-wasi.wasm', 'package/package.json', 'package/wasi-worker-browser.mjs', 'package/wasi-worker.mjs',
    ])
  })
})

describe('loading: an error for a broken install, a warned no-op where no build can load', () => {
  const onX64Glibc = process.platform === 'linux' && process.arch === 'x64'
  const PKG = '@deepseek-ai/dsh-tmux-context'
  const line = ['main', '1', 'editor', '0', '%3', '1', '1', 'b25f,80x24,0,0,3'].join('\\t')

  /** Extracts a tarball of .tmp/packs/ into `into` (its `package/` folder's content). */
  const unpack = (tarball, into) => {
    mkdirSync(into, { recursive: true })
    execFileSync('tar', ['-xzf', join(packs, tarball), '--strip-components=1', '-C', into])
  }

  /**
   * An empty folder with the packed package (from its tarball), no binary package, and the harness
   * packages linked from this checkout; `wasm` adds the WebAssembly package (and, unless
   * `wasmRuntime` is false, the runtime packages it depends on).
   */
  function consumer(prefix, { wasm = false, wasmRuntime = true } = {}) {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    const scope = join(dir, 'node_modules', '@deepseek-ai')
    unpack('dsh-tmux-context.tgz', join(scope, 'dsh-tmux-context'))
    for (const name of ['schemastery', 'cordis', 'dsh-agent', 'dsh-session', 'dsh-shell']) symlinkSync(join(root, 'node_modules', '@deepseek-ai', name), join(scope, name))
    symlinkSync(join(root, 'node_modules', 'fastest-levenshtein'), join(scope, '..', 'fastest-levenshtein'))
    if (wasm) unpack('dsh-tmux-context-wasm32-wasi.tgz', join(scope, 'dsh-tmux-context-wasm32-wasi'))
    if (wasm && wasmRuntime) for (const d of ['@napi-rs', '@emnapi', '@tybys']) symlinkSync(join(root, 'node_modules', d), join(dir, 'node_modules', d))
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
    copyFileSync(join(root, '__test__', 'fixtures', 'first-step.mjs'), join(dir, 'first-step.mjs'))
    copyFileSync(join(root, '__test__', 'answers.mjs'), join(dir, 'answers.mjs'))
    return dir
  }

  /** first-step.mjs in a fresh Node in `dir`, with optional preloaded code and config. */
  function firstStep(dir, { preload, config } = {}) {
    const args = [...(preload ? ['--import', `data:text/javascript,${encodeURIComponent(preload)}`] : []), 'first-step.mjs', line, ...(config ? [JSON.stringify(config)] : [])]
    const run = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, NAPI_RS_FORCE_WASI: '' } })
    return { ...run, result: run.status === 0 ? JSON.parse(run.stdout) : undefined }
  }

  const inDir = (prefix, options, body) => {
    const dir = consumer(prefix, options)
    try {
      body(dir)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  /** The warned no-op: one warning at apply, nothing registered, the decision untouched, no query. */
  function expectInactive(result) {
    expect(result.warnings).toHaveLength(1)
    expect(result.warnings[0]).toContain('The plugin is inactive: every pre-step passes through without a reading.')
    expect(result.warnings[0]).toContain(`\`npm install --force ${PKG}-wasm32-wasi\``)
    expect(result.passThrough).toBe(true)
    expect(result.queries).toBe(0)
    expect(result.loaded).toBeNull()
  }

  it.runIf(onX64Glibc)('binary package not installed, no WebAssembly package: imports, warns once naming both, registers nothing', () => {
    inDir('dshtc-nobin-', {}, (dir) => {
      const run = firstStep(dir)
      expect(run.status, run.stderr).toBe(0)
      expectInactive(run.result)
      expect(run.result.warnings[0]).toMatch(
        new RegExp(`^${PKG}: the binary package ${PKG}-linux-x64-gnu is not installed, nor is the WebAssembly package\\.`),
      )
      expect(run.result.warnings[0]).toContain(`\`npm install ${PKG}-linux-x64-gnu\``)
      expect(run.stderr).not.toContain('failed to load')
    })
  })

  it.runIf(onX64Glibc)('a checkout that was never built (no binary, no binding.cjs) says to run npm run build', () => {
    inDir('dshtc-unbuilt-', {}, (dir) => {
      rmSync(join(dir, 'node_modules', '@deepseek-ai', 'dsh-tmux-context', 'binding.cjs'))
      const run = firstStep(dir)
      expect(run.status).not.toBe(0)
      expect(run.stderr).toContain(`${PKG}: binding.cjs is missing: this is a source checkout that was not built; run \`npm run build\`.`)
    })
  })

  /** first-step.mjs in `dir` with the generated loader's variables set as `env` says. */
  const withLoaderEnv = (dir, env) => spawnSync(process.execPath, ['first-step.mjs', line], { cwd: dir, encoding: 'utf8', env: { ...process.env, NAPI_RS_FORCE_WASI: '', ...env } })

  it.runIf(onX64Glibc)('a built checkout without binding.cjs, with a NAPI_RS_ variable set: the error names the variable, not an unbuilt checkout (issue 43)', () => {
    inDir('dshtc-skipped-', {}, (dir) => {
      // Only the variables each run names: none inherited from the environment.
      const only = (at, env) => withLoaderEnv(at, { NAPI_RS_NATIVE_LIBRARY_PATH: '', NAPI_RS_ENFORCE_VERSION_CHECK: '', ...env })
      const pkg = join(dir, 'node_modules', '@deepseek-ai', 'dsh-tmux-context')
      rmSync(join(pkg, 'binding.cjs'))
      copyFileSync(join(root, `dsh-tmux-context.${hostPlatform()}.node`), join(pkg, `dsh-tmux-context.${hostPlatform()}.node`))
      // Without a variable, the build beside index.js loads.
      const plain = only(dir, {})
      expect(plain.status, plain.stderr).toBe(0)
      expect(JSON.parse(plain.stdout).messages).toHaveLength(1)
      for (const [variable, value] of [['NAPI_RS_ENFORCE_VERSION_CHECK', '1'], ['NAPI_RS_FORCE_WASI', '1'], ['NAPI_RS_NATIVE_LIBRARY_PATH', join(dir, 'other.node')]]) {
        const run = only(dir, { [variable]: value })
        expect(run.status).not.toBe(0)
        expect(run.stderr).toContain(
          `${PKG}: ${variable} is set, which makes this package pass over its build beside index.js (./dsh-tmux-context.${hostPlatform()}.node) and load through binding.cjs, napi-rs's loader, and binding.cjs is missing; unset ${variable} to load that build`,
        )
        expect(run.stderr).not.toContain('was not built')
      }
      const both = only(dir, { NAPI_RS_FORCE_WASI: '1', NAPI_RS_ENFORCE_VERSION_CHECK: '1' })
      expect(both.stderr).toContain(`${PKG}: NAPI_RS_FORCE_WASI and NAPI_RS_ENFORCE_VERSION_CHECK are set, which makes`)
      expect(both.stderr).toContain('unset NAPI_RS_FORCE_WASI and NAPI_RS_ENFORCE_VERSION_CHECK to load that build')
    })
  })

  it.runIf(onX64Glibc)('NAPI_RS_NATIVE_LIBRARY_PATH naming another build, or a path that does not load, is an error that names the variable (from a break-in)', () => {
    inDir('dshtc-override-', {}, (dir) => {
      installBinary(dir)
      const other = join(dir, 'other-build.cjs')
      writeFileSync(other, 'module.exports = {}\n')
      const foreign = withLoaderEnv(dir, { NAPI_RS_NATIVE_LIBRARY_PATH: other })
      expect(foreign.status).not.toBe(0)
      expect(foreign.stderr).toContain(`${PKG}: the build that loaded is not this package's (it lacks apply, plan and read): NAPI_RS_NATIVE_LIBRARY_PATH is set to ${other}, another package's build; unset it.`)
      expect(foreign.stderr).not.toContain('is not a function')
      const missing = withLoaderEnv(dir, { NAPI_RS_NATIVE_LIBRARY_PATH: join(dir, 'nowhere.node') })
      expect(missing.status).not.toBe(0)
      expect(missing.stderr).toContain(`${PKG}: NAPI_RS_NATIVE_LIBRARY_PATH is set to ${join(dir, 'nowhere.node')}, which does not load (Cannot find module`)
    })
  })

  it.runIf(onX64Glibc)('NAPI_RS_FORCE_WASI=error without the WebAssembly package: the warning names the variable (from a break-in)', () => {
    inDir('dshtc-forcewasi-', {}, (dir) => {
      installBinary(dir)
      const run = withLoaderEnv(dir, { NAPI_RS_FORCE_WASI: 'error' })
      expect(run.status).toBe(0)
      const result = JSON.parse(run.stdout)
      expect(result.warnings).toHaveLength(1)
      expect(result.warnings[0]).toMatch(new RegExp(`^${PKG}: NAPI_RS_FORCE_WASI=error asks for the WebAssembly package only, and it is not installed\\.`))
      expect(result.warnings[0]).not.toContain('no native binary for this platform')
    })
  })

  /** Unpacks the binary package of linux-x64-gnu into `dir` as the binary package of `platform`. */
  function installBinary(dir, platform = 'linux-x64-gnu') {
    const bin = join(dir, 'node_modules', '@deepseek-ai', `dsh-tmux-context-${platform}`)
    unpack('dsh-tmux-context-linux-x64-gnu.tgz', bin)
    if (platform !== 'linux-x64-gnu') {
      renameSync(join(bin, 'dsh-tmux-context.linux-x64-gnu.node'), join(bin, `dsh-tmux-context.${platform}.node`))
      const manifest = JSON.parse(readFileSync(join(bin, 'package.json'), 'utf8'))
      writeFileSync(join(bin, 'package.json'), JSON.stringify({ ...manifest, name: `${PKG}-${platform}`, main: `dsh-tmux-context.${platform}.node` }))
    }
    return bin
  }

  it.runIf(onX64Glibc)('loads the binary package from where Node resolution looks first (nested, else beside the package), with one dlopen', () => {
    inDir('dshtc-where-', {}, (dir) => {
      const scope = join(dir, 'node_modules', '@deepseek-ai')
      const beside = installBinary(dir)
      // Each process.dlopen call, on stderr.
      const preload = `const open = process.dlopen
        process.dlopen = (module, file, ...rest) => { process.stderr.write('dlopen ' + file + '\\n'); return open.call(process, module, file, ...rest) }`
      const opened = (run) => run.stderr.split('\n').filter((l) => l.startsWith('dlopen ')).map((l) => l.slice('dlopen '.length))
      const file = 'dsh-tmux-context-linux-x64-gnu/dsh-tmux-context.linux-x64-gnu.node'
      let run = firstStep(dir, { preload })
      expect(run.status, run.stderr).toBe(0)
      expect(opened(run)).toEqual([join(scope, file)])
      expect(run.result.messages).toHaveLength(1)
      // A copy in the package's own node_modules (npm nests one there when another version is hoisted) comes first.
      const nested = join(scope, 'dsh-tmux-context', 'node_modules', '@deepseek-ai')
      mkdirSync(nested, { recursive: true })
      cpSync(beside, join(nested, 'dsh-tmux-context-linux-x64-gnu'), { recursive: true })
      run = firstStep(dir, { preload })
      expect(run.status, run.stderr).toBe(0)
      expect(opened(run)).toEqual([join(nested, file)])
      expect(run.result.messages).toHaveLength(1)
    })
  })

  it.runIf(onX64Glibc)('a source checkout inside a folder whose node_modules holds the binary package (a monorepo) loads its own build, not that copy (issue 39)', () => {
    inDir('dshtc-checkout-', {}, (dir) => {
      installBinary(dir)
      // A clone of this checkout, built, in a monorepo's packages/ folder: its own node_modules lacks the binary package, the root has it.
      const clone = join(dir, 'packages', '@deepseek-ai', 'dsh-tmux-context')
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
      mkdirSync(clone, { recursive: true })
      for (const f of [...manifest.files, 'package.json']) if (existsSync(join(root, f))) cpSync(join(root, f), join(clone, f))
      symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'))
      const own = join(clone, `dsh-tmux-context.${hostPlatform()}.node`)
      copyFileSync(join(root, `dsh-tmux-context.${hostPlatform()}.node`), own)
      const script = `const open = process.dlopen
        process.dlopen = (module, file, ...rest) => { console.log('dlopen ' + file); return open.call(process, module, file, ...rest) }
        const m = await import('./packages/@deepseek-ai/dsh-tmux-context/index.js')
        m.apply({ on() {}, logger: { warn: (l) => console.log('warn ' + l), debug: (l) => console.log('debug ' + l) } }, {})`
      const load = () => spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, NAPI_RS_FORCE_WASI: '' } })
      let run = load()
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout.split('\n').filter(Boolean)).toEqual([`dlopen ${own}`, `debug tmux-context: native build ${manifest.version} (${hostPlatform()}) loaded from ${clone}`])
      // A build of the checkout that is there but does not load stops the import: no installed copy stands in for it.
      writeFileSync(own, 'not an ELF file')
      run = load()
      expect(run.status).not.toBe(0)
      expect(run.stdout.split('\n').filter(Boolean)).toEqual([`dlopen ${own}`])
      expect(run.stderr).toContain(`${PKG}: this checkout's build ./dsh-tmux-context.${hostPlatform()}.node is there but failed to load: `)
      expect(run.stderr).toContain('run `npm run build`')
    })
  })

  it.runIf(onX64Glibc)('a binary package folder that is there but cannot load is the error of a broken install, never passed over for another copy', () => {
    inDir('dshtc-stop-', {}, (dir) => {
      const scope = join(dir, 'node_modules', '@deepseek-ai')
      installBinary(dir)
      // Node's resolution stops at the package's own node_modules, where a copy without a loadable
      // .node stands (a truncated file, then none): the working copy beside it is not Node's choice.
      const nested = join(scope, 'dsh-tmux-context', 'node_modules', '@deepseek-ai', 'dsh-tmux-context-linux-x64-gnu')
      mkdirSync(nested, { recursive: true })
      copyFileSync(join(scope, 'dsh-tmux-context-linux-x64-gnu', 'package.json'), join(nested, 'package.json'))
      writeFileSync(join(nested, 'dsh-tmux-context.linux-x64-gnu.node'), 'not an ELF file')
      for (const broken of [true, false]) {
        if (!broken) rmSync(join(nested, 'dsh-tmux-context.linux-x64-gnu.node'))
        const run = firstStep(dir)
        expect(run.status, run.stdout).not.toBe(0)
        expect(run.stderr).toContain(`${PKG}: the native binary for linux-x64-gnu is installed but failed to load`)
      }
    })
  })

  it.runIf(onX64Glibc)('a binary package whose package.json cannot be read, or names another main, is a broken install (as Node resolves it)', () => {
    inDir('dshtc-manifest-', {}, (dir) => {
      const manifest = join(installBinary(dir), 'package.json')
      const good = readFileSync(manifest, 'utf8')
      for (const bad of [good.slice(0, 20), JSON.stringify({ ...JSON.parse(good), main: 'index.js' })]) {
        writeFileSync(manifest, bad)
        const run = firstStep(dir)
        expect(run.status, run.stdout).not.toBe(0)
        expect(run.stderr).toContain(`${PKG}: the native binary for linux-x64-gnu is installed but failed to load`)
      }
    })
  })

  it('two copies of index.js sharing one native module (through the generated loader) each get their own step', () => {
    // NAPI_RS_ENFORCE_VERSION_CHECK sends both through binding.cjs, whose require cache hands both the same module.
    const script = `import { makeAgent, mount, preStep } from './__test__/harness.mjs'
      const copies = [await import('./index.js'), await import('./index.js?again')]
      const out = []
      for (const plugin of copies) {
        const { ctx } = await mount(plugin)
        const { decision } = await preStep(ctx, makeAgent())
        out.push(decision.messages?.length === 1 && decision.messages[0].content[0].text.startsWith('tmux location (turn 1):'))
      }
      console.log(JSON.stringify(out))`
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', env: { ...process.env, NAPI_RS_ENFORCE_VERSION_CHECK: '1' } })
    expect(run.status, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout.trim().split('\n').pop())).toEqual([true, true])
  })

  it.runIf(onX64Glibc)('where no build loads, a bad config is still the TypeError of the native build', () => {
    inDir('dshtc-nobin-config-', {}, (dir) => {
      for (const [config, message] of [
        [{ refreshIntervalMs: -5 }, 'TypeError: tmux-context: refreshIntervalMs must be a non-negative safe integer, got -5'],
        [{ refreshIntervalMs: 1.5 }, 'TypeError: tmux-context: refreshIntervalMs must be a non-negative safe integer, got 1.5'],
        [{ refreshIntervalMs: '60000' }, 'TypeError: tmux-context: refreshIntervalMs must be a non-negative safe integer, got 60000'],
        [{ queryTimeoutMs: 0 }, 'TypeError: tmux-context: queryTimeoutMs must be a positive safe integer no greater than 2147483647, got 0'],
        [{ panes: 'yes' }, 'TypeError: tmux-context: panes must be true, false, "window" or "session", got yes'],
        [{ paneOptions: ['@x;rm -rf'] }, 'TypeError: tmux-context: paneOptions[0] must be a tmux user option name: @ then 1 to 32 letters, digits, _ or -, got "@x;rm -rf"'],
        [{ clients: 'yes' }, 'TypeError: tmux-context: clients must be true or false, got yes'],
      ].map(([config, message]) => [config, `${message} (change it under config: of the tmux-context row in your profile's cordis.patch.yml, or cordis.yml)`])) {
        expect(firstStep(dir, { config }).result.configError).toBe(message)
        let nativeError
        try {
          native.apply({ on() {} }, config)
        } catch (error) {
          nativeError = `${error.constructor.name}: ${error.message}`
        }
        expect(nativeError).toBe(message)
      }
      expect(firstStep(dir, { config: { refreshIntervalMs: 0, queryTimeoutMs: 100 } }).result.configError).toBeUndefined()
    })
  })

  it.runIf(onX64Glibc)('installed but fails to load: a clear error at import, with the first line of the cause (a newer glibc needed)', () => {
    inDir('dshtc-badbin-', {}, (dir) => {
      // A binary package whose .node needs GLIBC_2.99, as a binary built on a newer system fails on
      // an older one: linked against a stub libc.so.6 that defines that version.
      const build = join(dir, 'build')
      mkdirSync(build)
      writeFileSync(join(build, 'stub.c'), 'void dsh_tmux_context_probe(void) {}\n')
      writeFileSync(join(build, 'stub.map'), 'GLIBC_2.99 { global: dsh_tmux_context_probe; local: *; };\n')
      writeFileSync(join(build, 'probe.c'), 'extern void dsh_tmux_context_probe(void);\nvoid napi_register_module_v1(void) { dsh_tmux_context_probe(); }\n')
      execFileSync('gcc', ['-shared', '-fPIC', '-nostdlib', '-Wl,-soname,libc.so.6', '-Wl,--version-script=stub.map', '-o', 'libc.so.6', 'stub.c'], { cwd: build })
      const bin = join(dir, 'node_modules', '@deepseek-ai', 'dsh-tmux-context-linux-x64-gnu')
      mkdirSync(bin, { recursive: true })
      execFileSync('gcc', ['-shared', '-fPIC', '-nostdlib', '-o', join(bin, 'dsh-tmux-context.linux-x64-gnu.node'), 'probe.c', 'libc.so.6'], { cwd: build })
      const manifest = execFileSync('tar', ['-xzOf', join(packs, 'dsh-tmux-context-linux-x64-gnu.tgz'), 'package/package.json'])
      writeFileSync(join(bin, 'package.json'), manifest)
      const run = firstStep(dir)
      expect(run.status).not.toBe(0)
      expect(run.stderr).toContain(`${PKG}: the native binary for linux-x64-gnu is installed but failed to load: `)
      expect(run.stderr).toMatch(/failed to load: \S*libc\.so\.6: version `GLIBC_2\.99' not found \(required by \S+dsh-tmux-context\.linux-x64-gnu\.node\)/)
      expect(run.stderr).not.toContain('is not installed')
    })
  })

  it('a platform with no native binary and no WebAssembly package: imports, warns naming it, the built ones and how to build', () => {
    inDir('dshtc-noplatform-', {}, (dir) => {
      const eleven = 'linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-msvc, win32-arm64-msvc, linux-arm-gnueabihf, freebsd-x64, linux-riscv64-gnu'
      // Linux on loong64 (the loader looks for linux-loong64-<libc>), and an OS napi-rs has no loader for.
      const loong = firstStep(dir, { preload: "Object.defineProperty(process, 'arch', { value: 'loong64' })" })
      expect(loong.status, loong.stderr).toBe(0)
      expectInactive(loong.result)
      expect(loong.result.warnings[0]).toMatch(new RegExp(`^${PKG}: there is no native binary for this platform \\(linux-loong64(-gnu|-musl)?\\); binaries are built for: ${eleven}, nor is the WebAssembly package\\.`))
      expect(loong.result.warnings[0]).toContain('To build from source:')
      expect(loong.result.warnings[0]).not.toContain(`npm install ${PKG}-linux`)
      const aix = firstStep(dir, { preload: "Object.defineProperty(process, 'platform', { value: 'aix' }); Object.defineProperty(process, 'arch', { value: 'ppc64' })" })
      expect(aix.status, aix.stderr).toBe(0)
      expectInactive(aix.result)
      expect(aix.result.warnings[0]).toContain(`there is no native binary for this platform (aix-ppc64); binaries are built for: ${eleven}`)
    })
  })

  it.runIf(onX64Glibc)('no native binary, the WebAssembly package installed: it loads, and the debug line names it', () => {
    inDir('dshtc-wasm-', { wasm: true }, (dir) => {
      const run = firstStep(dir)
      expect(run.status, run.stderr).toBe(0)
      expect(run.result.loaded).toBe(`node_modules/${PKG}-wasm32-wasi/dsh-tmux-context.wasi.cjs`)
      expect(run.result.warnings).toEqual([])
      expect(run.result.queries).toBe(1)
      expect(run.result.messages[0].content[0].text).toBe('tmux location (turn 1):\nsession main, window 1 "editor", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3')
    })
  })

  it.runIf(onX64Glibc)('the WebAssembly package installed but unable to run (its runtime missing): imports, warns saying so', () => {
    inDir('dshtc-wasm-broken-', { wasm: true, wasmRuntime: false }, (dir) => {
      const run = firstStep(dir)
      expect(run.status, run.stderr).toBe(0)
      expectInactive(run.result)
      expect(run.result.warnings[0]).toContain("and the WebAssembly package cannot run here: Cannot find module '@napi-rs/wasm-runtime'")
    })
  })
})

describe('types', () => {
  it('a TypeScript consumer mounting the package with config type-checks against the harness types', () => {
    const run = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, '__test__/types/tsconfig.json')], { encoding: 'utf8' })
    expect(run.stdout + run.stderr).toBe('')
    expect(run.status).toBe(0)
  }, 60_000)
})

describe('bilingual README', () => {
  it('README.i18n.yaml records the git blob hashes of both READMEs as they are', () => {
    const record = Object.fromEntries(
      readFileSync(join(root, 'README.i18n.yaml'), 'utf8')
        .split('\n')
        .filter((l) => /^README(\.zh)?\.md: /.test(l))
        .map((l) => l.split(': ')),
    )
    for (const file of ['README.md', 'README.zh.md']) {
      const hash = execFileSync('git', ['hash-object', join(root, file)], { encoding: 'utf8' }).trim()
      expect(record[file], `${file} changed without its pair: update both, then run node scripts/i18n-record.mjs`).toBe(hash)
    }
  })

  it('both READMEs carry the same sections', () => {
    const headings = (f) => readFileSync(join(root, f), 'utf8').split('\n').filter((l) => l.startsWith('#')).length
    expect(headings('README.zh.md')).toBe(headings('README.md'))
  })
})

describe('logging', () => {
  it('warnings go through ctx.logger only; nothing is written to stdout or stderr', async () => {
    const out = vi.spyOn(process.stdout, 'write')
    const err = vi.spyOn(process.stderr, 'write')
    const { ctx } = await mount(native, {}, { respond: () => Promise.reject(new Error('denied')) })
    const warn = vi.spyOn(ctx.logger, 'warn').mockImplementation(() => {})
    await preStep(ctx, makeAgent())
    const broken = makeAgent('b')
    Object.defineProperty(broken, 'session', { get: () => { throw new Error('gone') } })
    await preStep(ctx, broken)
    expect(warn).toHaveBeenCalledTimes(2)
    expect(out).not.toHaveBeenCalled()
    expect(err).not.toHaveBeenCalled()
    out.mockRestore()
    err.mockRestore()
  })
})

describe('npm run pack of a partial build (npm run build: this machine only)', () => {
  it.runIf(process.platform === 'linux' && process.arch === 'x64')('packs what is built, and the main package names every platform package', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dshtc-partial-'))
    try {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
      for (const f of [...manifest.files, 'package.json', 'scripts']) if (existsSync(join(root, f))) cpSync(join(root, f), join(dir, f), { recursive: true })
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
      mkdirSync(join(dir, 'npm'))
      for (const p of readdirSync(join(root, 'npm'))) {
        mkdirSync(join(dir, 'npm', p))
        copyFileSync(join(root, 'npm', p, 'package.json'), join(dir, 'npm', p, 'package.json'))
      }
      copyFileSync(join(root, 'npm', 'linux-x64-gnu', 'dsh-tmux-context.linux-x64-gnu.node'), join(dir, 'npm', 'linux-x64-gnu', 'dsh-tmux-context.linux-x64-gnu.node'))
      const run = spawnSync('bash', ['scripts/pack.sh'], { cwd: dir, encoding: 'utf8' })
      expect(run.status, run.stderr).toBe(0)
      expect(readdirSync(join(dir, '.tmp', 'packs')).sort()).toEqual(['dsh-tmux-context-linux-x64-gnu.tgz', 'dsh-tmux-context.tgz'])
      const packed = JSON.parse(execFileSync('tar', ['-xzOf', join(dir, '.tmp', 'packs', 'dsh-tmux-context.tgz'), 'package/package.json'], { encoding: 'utf8' }))
      expect(Object.keys(packed.optionalDependencies)).toHaveLength(manifest.napi.targets.length)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})

