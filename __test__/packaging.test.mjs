// Packaging: the `npm pack` tarballs install together into an empty folder and import by name; the
// packed package lists the six binary packages; the loader fails with one clear message per kind
// (binary package missing, binary that does not load, platform without a binary); the types
// compile for a TypeScript consumer; both READMEs stay paired; nothing is written to stdout or
// stderr directly.
import { describe, expect, it, vi } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
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
        error: 'TypeError: tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1',
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

  it('the packed package names the six binary packages as optional dependencies; the lockfile names none', () => {
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', join(packs, 'dsh-tmux-context.tgz'), 'package/package.json'], { encoding: 'utf8' }))
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const platforms = ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64']
    expect(manifest.optionalDependencies).toEqual(Object.fromEntries(platforms.map((p) => [`${pkg.name}-${p}`, pkg.version])))
    expect(manifest.files).toContain('binding.cjs')
    for (const p of platforms) {
      expect(existsSync(join(packs, `dsh-tmux-context-${p}.tgz`)), `dsh-tmux-context-${p}.tgz`).toBe(true)
      const listing = execFileSync('tar', ['-tzf', join(packs, `dsh-tmux-context-${p}.tgz`)], { encoding: 'utf8' }).split('\n').filter(Boolean).sort()
      expect(listing).toEqual(['package/README.md', `package/dsh-tmux-context.${p}.node`, 'package/package.json'])
    }
    // npm ci must keep working: the repository's lockfile holds no package that is not published.
    expect(pkg.optionalDependencies).toBeUndefined()
    expect(readFileSync(join(root, 'package-lock.json'), 'utf8')).not.toContain('@deepseek-ai/dsh-tmux-context-')
  })
})

describe('loader errors: one message per kind of failure', () => {
  const onX64Glibc = process.platform === 'linux' && process.arch === 'x64'

  /** An empty folder with the packed package (from its tarball) and schemastery, no binary package. */
  function consumer(prefix) {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    const pkg = join(dir, 'node_modules', '@deepseek-ai', 'dsh-tmux-context')
    mkdirSync(pkg, { recursive: true })
    execFileSync('tar', ['-xzf', join(packs, 'dsh-tmux-context.tgz'), '--strip-components=1', '-C', pkg])
    symlinkSync(join(root, 'node_modules', '@deepseek-ai', 'schemastery'), join(dir, 'node_modules', '@deepseek-ai', 'schemastery'))
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
    return dir
  }

  /** `import('@deepseek-ai/dsh-tmux-context')` in a fresh Node, with optional preloaded code. */
  function importIn(dir, preload) {
    const args = [...(preload ? ['--import', `data:text/javascript,${encodeURIComponent(preload)}`] : []), '--input-type=module', '-e', "await import('@deepseek-ai/dsh-tmux-context')"]
    return spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8' })
  }

  it.runIf(onX64Glibc)('binary package not installed: names it and says how to install it', () => {
    const dir = consumer('dshtc-nobin-')
    try {
      const run = importIn(dir)
      expect(run.status).not.toBe(0)
      expect(run.stderr).toContain(
        '@deepseek-ai/dsh-tmux-context: the binary package @deepseek-ai/dsh-tmux-context-linux-x64-gnu is not installed',
      )
      expect(run.stderr).toContain('`npm install @deepseek-ai/dsh-tmux-context-linux-x64-gnu`')
      expect(run.stderr).toContain('npm run tarballs')
      expect(run.stderr).not.toContain('failed to load')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.runIf(onX64Glibc)('installed but fails to load: says so and shows the first line of the error (a newer glibc needed)', () => {
    const dir = consumer('dshtc-badbin-')
    try {
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
      const run = importIn(dir)
      expect(run.status).not.toBe(0)
      expect(run.stderr).toContain('@deepseek-ai/dsh-tmux-context: the native binary for linux-x64-gnu is installed but failed to load: ')
      expect(run.stderr).toMatch(/failed to load: \S*libc\.so\.6: version `GLIBC_2\.99' not found \(required by \S+dsh-tmux-context\.linux-x64-gnu\.node\)/)
      expect(run.stderr).not.toContain('is not installed')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a platform with no binary: names it, the six that have one, and how to build from source', () => {
    const dir = consumer('dshtc-noplatform-')
    try {
      const six = 'linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64'
      // Linux on riscv64 (the loader looks for linux-riscv64-<libc>), and an OS napi-rs has no loader for.
      const riscv = importIn(dir, "Object.defineProperty(process, 'arch', { value: 'riscv64' })")
      expect(riscv.status).not.toBe(0)
      expect(riscv.stderr).toMatch(/@deepseek-ai\/dsh-tmux-context: no native binary for this platform \((linux|darwin|\w+)-riscv64(-gnu|-musl)?\)\./)
      expect(riscv.stderr).toContain(`Binaries are built for: ${six}.`)
      expect(riscv.stderr).toContain('To build from source:')
      expect(riscv.stderr).toContain('"napi.targets"')
      expect(riscv.stderr).toContain('npm run build && npm run pack')
      const aix = importIn(dir, "Object.defineProperty(process, 'platform', { value: 'aix' }); Object.defineProperty(process, 'arch', { value: 'ppc64' })")
      expect(aix.status).not.toBe(0)
      expect(aix.stderr).toContain(`@deepseek-ai/dsh-tmux-context: no native binary for this platform (aix-ppc64). Binaries are built for: ${six}.`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
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
