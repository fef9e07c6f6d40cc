// Packaging: the `npm pack` tarballs install together into an empty folder and import by name; a
// platform without a binary fails with one clear message; the types compile for a TypeScript
// consumer; both READMEs stay paired; nothing is written to stdout or stderr directly.
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

  it('a missing binary package fails at import with one message naming it and how to install it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dshtc-nobin-'))
    try {
      const pkg = join(dir, 'node_modules', '@deepseek-ai', 'dsh-tmux-context')
      mkdirSync(pkg, { recursive: true })
      for (const f of ['index.js', 'invariant.js', 'package.json']) copyFileSync(join(root, f), join(pkg, f))
      symlinkSync(join(root, 'node_modules', '@deepseek-ai', 'schemastery'), join(dir, 'node_modules', '@deepseek-ai', 'schemastery'))
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('@deepseek-ai/dsh-tmux-context')"], { cwd: dir, encoding: 'utf8' })
      expect(run.status).not.toBe(0)
      expect(run.stderr).toContain('@deepseek-ai/dsh-tmux-context: the binary package @deepseek-ai/dsh-tmux-context-linux-x64-gnu is not installed')
      expect(run.stderr).toContain('npm run tarballs')
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
