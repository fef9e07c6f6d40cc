// The query under a confining executor (issue 14): a `ctx.shell` that stamps a sandbox policy on the
// spec, as the harness's dsh-bash-sandbox does (`resolve(request)` = the local spec plus
// `sandboxPolicy: request.sandboxPolicy ?? <deployment policy>`; `run(spec)` confines by
// `spec.sandboxPolicy`). The query runs narrowed, never widened: `workspace-write` becomes `read-only`
// through a second `resolve()` with `request.sandboxPolicy`; every other mode, and an executor without
// policies, gets exactly the calls it gets today. Real confinement (bwrap, Landlock) is in e2e.test.mjs.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import { ShellExecutor } from '@deepseek-ai/dsh-shell'
import { implementations, line, makeAgent, native, preStep, readings, runResult } from './harness.mjs'

afterEach(() => {
  vi.restoreAllMocks()
})

const deepFreeze = (o) => {
  for (const v of Object.values(o)) if (v && typeof v === 'object' && !(v instanceof AbortSignal)) deepFreeze(v)
  return Object.freeze(o)
}

/**
 * Mount `plugin` over an executor shaped like dsh-bash-sandbox 0.1.0-rc.8, whose deployment policy is
 * `policy` (`undefined`: it stamps none). Its specs and policies are frozen. `honour: false` makes an
 * executor that ignores `request.sandboxPolicy`.
 */
async function mountSandboxed(plugin, policy, { honour = true, resolveError } = {}) {
  const record = { resolved: [], specs: [], ran: [] }
  class SandboxLike extends ShellExecutor {
    get sandboxMode() {
      return policy?.mode
    }
    resolve(request) {
      record.resolved.push(request)
      if (resolveError && record.resolved.length === 2) throw resolveError
      const spec = deepFreeze({
        command: request.command,
        workdir: process.cwd(),
        timeoutMs: request.timeoutMs ?? 60_000,
        stdoutMaxBytes: 64_000,
        ...(request.signal ? { signal: request.signal } : {}),
        sandboxPolicy: (honour ? request.sandboxPolicy : undefined) ?? (policy && { ...policy }),
      })
      record.specs.push(spec)
      return spec
    }
    run(spec) {
      record.ran.push(spec)
      return Promise.resolve(runResult(line() + '\n'))
    }
    start() {
      throw new Error('start() must never be called')
    }
  }
  const ctx = new Context()
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(SandboxLike)
  await ctx.plugin(plugin, {})
  return { ctx, record }
}

const WORKSPACE_WRITE = { mode: 'workspace-write', workspaceRoot: '/work/space' }

describe('the query under a sandbox policy', () => {
  it('workspace-write: resolve() again with the same policy, mode read-only, and run that spec', async () => {
    const { ctx, record } = await mountSandboxed(native, WORKSPACE_WRITE)
    const warn = vi.spyOn(ctx.logger, 'warn')
    const signal = new AbortController().signal
    const { decision } = await preStep(ctx, makeAgent(), { signal })
    expect(readings(decision)).toHaveLength(1)
    expect(warn).not.toHaveBeenCalled()
    expect(record.resolved).toHaveLength(2)
    const [first, second] = record.resolved
    // The first request is the one every executor gets (no policy asked for).
    expect(Object.keys(first)).toEqual(['command', 'signal', 'timeoutMs', 'stdoutMaxBytes'])
    expect(first.signal).toBe(signal)
    // The second: the same request plus the deployment's policy, narrowed; a new object each.
    expect(Object.keys(second)).toEqual(['command', 'signal', 'timeoutMs', 'stdoutMaxBytes', 'sandboxPolicy'])
    expect(second.command).toBe(first.command)
    expect(second.signal).toBe(signal)
    expect(second.timeoutMs).toBe(first.timeoutMs)
    expect(second.sandboxPolicy).toEqual({ mode: 'read-only', workspaceRoot: '/work/space' })
    expect(Object.keys(second.sandboxPolicy)).toEqual(['mode', 'workspaceRoot'])
    expect(second.sandboxPolicy).not.toBe(record.specs[0].sandboxPolicy)
    // run() gets the executor's own spec for the narrowed request, the very object.
    expect(record.ran).toHaveLength(1)
    expect(record.ran[0]).toBe(record.specs[1])
    expect(record.ran[0].sandboxPolicy.mode).toBe('read-only')
    // Nothing of the executor's was changed (its objects are frozen; a write would have failed).
    expect(record.specs[0].sandboxPolicy).toEqual(WORKSPACE_WRITE)
  })

  it('keeps every other policy field (a session id, unknown extras) in the narrowed policy', async () => {
    const policy = { mode: 'workspace-write', workspaceRoot: '/w', sessionId: 's-1', extra: { deep: 1 } }
    const { ctx, record } = await mountSandboxed(native, policy)
    await preStep(ctx, makeAgent())
    expect(record.resolved[1].sandboxPolicy).toEqual({ ...policy, mode: 'read-only' })
    expect(record.resolved[1].sandboxPolicy.extra).toBe(record.specs[0].sandboxPolicy.extra)
  })

  for (const mode of ['read-only', 'danger-full-access', 'some-custom-jail']) {
    it(`${mode}: one resolve(), and run() gets its spec untouched`, async () => {
      const { ctx, record } = await mountSandboxed(native, { mode, workspaceRoot: '/w' })
      const { decision } = await preStep(ctx, makeAgent())
      expect(readings(decision)).toHaveLength(1)
      expect(record.resolved).toHaveLength(1)
      expect(record.ran).toEqual([record.specs[0]])
      expect(record.ran[0]).toBe(record.specs[0])
    })
  }

  it('an executor without policies: one resolve(), the same spec to run(), as the JS package', async () => {
    for (const [, plugin] of implementations) {
      const { ctx, record } = await mountSandboxed(plugin, undefined)
      const { decision } = await preStep(ctx, makeAgent())
      expect(readings(decision)).toHaveLength(1)
      expect(record.resolved).toHaveLength(1)
      expect(record.ran[0]).toBe(record.specs[0])
      expect(record.ran[0].sandboxPolicy).toBeUndefined()
    }
  })

  it('a spec that is not an object (an executor of its own kind) goes to run() as resolve() gave it, as the JS package', async () => {
    for (const [, plugin] of implementations) {
      const ran = []
      class StringSpecs extends ShellExecutor {
        resolve(request) {
          return `spec:${request.command.length > 0}`
        }
        run(spec) {
          ran.push(spec)
          return Promise.resolve(runResult(line() + '\n'))
        }
      }
      const ctx = new Context()
      await ctx.plugin(AgentRegistry)
      await ctx.plugin(StringSpecs)
      await ctx.plugin(plugin, {})
      expect(readings((await preStep(ctx, makeAgent())).decision)).toHaveLength(1)
      expect(ran).toEqual(['spec:true'])
    }
  })

  it('an executor that ignores request.sandboxPolicy: the first spec runs (never a wider one)', async () => {
    const { ctx, record } = await mountSandboxed(native, WORKSPACE_WRITE, { honour: false })
    const { decision } = await preStep(ctx, makeAgent())
    expect(readings(decision)).toHaveLength(1)
    expect(record.resolved).toHaveLength(2)
    expect(record.ran).toHaveLength(1)
    expect(record.ran[0]).toBe(record.specs[0])
  })

  it('the second resolve() throwing is a failed query: one warning, no location, nothing run', async () => {
    const { ctx, record } = await mountSandboxed(native, WORKSPACE_WRITE, { resolveError: new Error('no such policy') })
    const warn = vi.spyOn(ctx.logger, 'warn')
    const { decision } = await preStep(ctx, makeAgent())
    expect(readings(decision)).toHaveLength(0)
    expect(record.ran).toHaveLength(0)
    expect(warn).toHaveBeenCalledWith('tmux location query failed: no such policy; injecting no location this turn')
  })

  it('a spec whose policy cannot be read runs as resolved, without a warning', async () => {
    const { ctx, record } = await mountSandboxed(native, undefined)
    const warn = vi.spyOn(ctx.logger, 'warn')
    const odd = Object.defineProperty({ command: 'x' }, 'sandboxPolicy', {
      get() {
        throw new Error('policy getter')
      },
    })
    const ShellClass = Object.getPrototypeOf(ctx.get('shell')).constructor
    vi.spyOn(ShellClass.prototype, 'resolve').mockImplementation(() => odd)
    const { decision } = await preStep(ctx, makeAgent())
    expect(readings(decision)).toHaveLength(1)
    expect(record.ran).toEqual([odd])
    expect(warn).not.toHaveBeenCalled()
  })
})
