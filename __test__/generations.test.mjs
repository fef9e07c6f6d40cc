// Every harness generation (CONTRACT "Beyond"): the executor's `execute()` API of upstream 0.1.7+/0.2
// (`ShellExecutor` with only `resolve(request)` and `execute(spec)`, whose handle's `result()` gives the
// `ShellRunResult`; requests gain `stdoutMaxBytes`), and the reading's source kind of that generation,
// `{ kind: 'tmux-context', form: 'snapshot', sections }`. The stand-in executors are the registry's
// dsh-shell 0.1.0-rc.8 class (which declares neither `run` nor `execute` on its prototype) with the
// methods of upstream's types; the sessions are real rc.8 Sessions holding readings of both shapes.
// The rc.8 JS package runs side by side where its behaviour is defined: on an `execute()`-only host it
// calls the missing `run` and warns every turn; it does not know the new source kind.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import { ShellExecutor } from '@deepseek-ai/dsh-shell'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { commit, implementations, line, makeAgent, native, preStep, readings, reference, runResult, turn } from './harness.mjs'

afterEach(() => {
  vi.restoreAllMocks()
})

const TEXT = 'tmux location (turn 1):\nsession main, window 1 "editor", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3'

/**
 * Mount `plugin` over an `execute()`-only executor: `resolve(request)` fills the spec as upstream's
 * `ShellExecSpec` (with `onExpiry` and `stdoutMaxBytes`), `execute(spec)` resolves with a handle whose
 * `result()` resolves with what `respond(spec)` gives. `handle` shapes the handle differently.
 */
async function mountExecuteOnly(plugin, { respond = () => Promise.resolve(runResult(line() + '\n')), handle, config = {} } = {}) {
  const record = { requests: [], executed: [], results: 0, resolveError: undefined, executeError: undefined }
  class ExecuteOnly extends ShellExecutor {
    resolve(request) {
      record.requests.push(request)
      if (record.resolveError) throw record.resolveError
      return { ...request, workdir: process.cwd(), timeoutMs: request.timeoutMs ?? 30_000, onExpiry: 'kill', stdoutMaxBytes: request.stdoutMaxBytes ?? 1 << 20, sandboxPolicy: undefined }
    }
    execute(spec) {
      record.executed.push(spec)
      if (record.executeError) return Promise.reject(record.executeError)
      const made = handle ?? {
        status: 'running',
        result: () => {
          record.results += 1
          return respond(spec)
        },
      }
      return Promise.resolve(made)
    }
  }
  const ctx = new Context()
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(ExecuteOnly)
  await ctx.plugin(plugin, config)
  return { ctx, record }
}

/** A stored reading of `text` with either generation's source shape. */
function storedReading(text, shape) {
  const source = shape === 'upstream'
    ? { kind: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text }] }
    : { kind: 'plugin', plugin: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text }] }
  return createUserMessage({ content: [{ type: 'text', text }], source })
}

describe('an execute()-only executor (upstream 0.1.7+/0.2)', () => {
  it('reads through execute(spec) and result(), with a stdout bound, and writes the source kind that generation reads', async () => {
    const { ctx, record } = await mountExecuteOnly(native)
    const signal = new AbortController().signal
    const agent = makeAgent()
    const { decision } = await preStep(ctx, agent, { signal })
    expect(record.executed).toHaveLength(1)
    expect(record.results).toBe(1)
    const [request] = record.requests
    expect(Object.keys(request)).toEqual(['command', 'signal', 'timeoutMs', 'stdoutMaxBytes'])
    expect(request.signal).toBe(signal)
    expect(request.stdoutMaxBytes).toBe(1 << 20)
    expect(request.command).toContain('tmux display-message -t "$TMUX_PANE" -p')
    expect(record.executed[0].signal).toBe(signal)
    const [reading] = readings(decision)
    expect(reading.content).toEqual([{ type: 'text', text: TEXT }])
    expect(reading.source).toEqual({ kind: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text: TEXT }] })
    expect(Object.keys(reading)).toEqual(['content', 'source', 'role', 'id'])
    expect(Object.isFrozen(reading.source)).toBe(true)
  })

  it('schedules against its own readings: unchanged is suppressed, a change reads again', async () => {
    let name = 'editor'
    const { ctx } = await mountExecuteOnly(native, { respond: () => Promise.resolve(runResult(line({ windowName: name }) + '\n')) })
    const agent = makeAgent()
    const kinds = []
    for (let t = 1; t <= 3; t++) {
      if (t === 3) name = 'renamed'
      const out = await turn(ctx, agent, t)
      kinds.push(out.decision.messages.map((m) => m.source.kind))
    }
    expect(kinds).toEqual([['tmux-context'], [], ['tmux-context']])
  })

  it('the pass-through rules hold: a rejected or aborted step, a later step, a non-zero exit, an unreadable line', async () => {
    const { ctx, record } = await mountExecuteOnly(native, { respond: () => Promise.resolve(runResult('garbage\n')) })
    const agent = makeAgent()
    const rejected = { kind: 'reject', reason: 'no' }
    expect((await preStep(ctx, agent, { downstream: rejected })).decision).toBe(rejected)
    const aborted = new AbortController()
    aborted.abort()
    const a = await preStep(ctx, agent, { signal: aborted.signal })
    expect(a.decision).toBe(a.base)
    const later = await preStep(ctx, agent, { step: 2 })
    expect(later.decision).toBe(later.base)
    expect(record.executed).toHaveLength(0)
    const unreadable = await preStep(ctx, agent)
    expect(unreadable.decision).toBe(unreadable.base)
    const exit = await mountExecuteOnly(native, { respond: () => Promise.resolve(runResult(line() + '\n', 1)) })
    const failed = await preStep(exit.ctx, makeAgent())
    expect(failed.decision).toBe(failed.base)
  })

  it('resolve() throwing, execute() rejecting and result() rejecting are one warning each, in the contract words', async () => {
    const cases = [
      ['resolve', (r) => { r.resolveError = new Error('policy says no') }, undefined],
      ['execute', (r) => { r.executeError = new Error('spawn failed') }, undefined],
      ['result', () => {}, () => Promise.reject(new Error('infrastructure failure'))],
      ['result, not an Error', () => {}, () => Promise.reject('gone')],
    ]
    const words = []
    for (const [, arrange, respond] of cases) {
      const { ctx, record } = await mountExecuteOnly(native, respond ? { respond } : {})
      arrange(record)
      const warn = vi.spyOn(ctx.logger, 'warn')
      const out = await preStep(ctx, makeAgent())
      expect(out.decision).toBe(out.base)
      words.push(warn.mock.calls.map((c) => c[0]))
      warn.mockRestore()
    }
    expect(words).toEqual([
      ['tmux location query failed: policy says no; injecting no location this turn'],
      ['tmux location query failed: spawn failed; injecting no location this turn'],
      ['tmux location query failed: infrastructure failure; injecting no location this turn'],
      ['tmux location query failed: gone; injecting no location this turn'],
    ])
  })

  it('a handle without result() is a failed query: one warning, no reading', async () => {
    const { ctx } = await mountExecuteOnly(native, { handle: { status: 'running' } })
    const warn = vi.spyOn(ctx.logger, 'warn')
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    expect(warn.mock.calls.map((c) => c[0])).toEqual(['tmux location query failed: execution.result is not a function; injecting no location this turn'])
  })

  it('a result that never comes is bounded by our own timer, then the backoff', async () => {
    const { ctx, record } = await mountExecuteOnly(native, { respond: () => new Promise(() => {}), config: { queryTimeoutMs: 50 } })
    const first = await preStep(ctx, makeAgent())
    expect(first.decision).toBe(first.base)
    const second = await preStep(ctx, makeAgent('session-b'))
    expect(second.decision).toBe(second.base)
    expect(record.executed).toHaveLength(1)
  }, 10_000)

  it('when our own bound runs out, the execution is told to stop (kill()), once (from a break-in)', async () => {
    const kill = vi.fn()
    const handle = { status: 'running', result: () => new Promise(() => {}), kill }
    const { ctx } = await mountExecuteOnly(native, { handle, config: { queryTimeoutMs: 50 } })
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    await new Promise((r) => setImmediate(r))
    expect(kill).toHaveBeenCalledTimes(1)
  }, 10_000)

  it('for comparison, the rc.8 JS package on that host calls the missing run() and warns every turn', async () => {
    const { ctx } = await mountExecuteOnly(reference)
    const warn = vi.spyOn(ctx.logger, 'warn')
    const agent = makeAgent()
    for (let t = 1; t <= 2; t++) await turn(ctx, agent, t)
    expect(warn).toHaveBeenCalledTimes(2)
    expect(warn.mock.calls[0][0]).toMatch(/^tmux location query failed: .*run.* is not a function; injecting no location this turn$/)
  })
})

describe('an executor with neither run() nor execute()', () => {
  it('warns once, naming what is missing, and every step passes through', async () => {
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    ctx.provide('shell', { resolve: (r) => r })
    await ctx.plugin(native, {})
    const warn = vi.spyOn(ctx.logger, 'warn')
    const agent = makeAgent()
    for (let t = 1; t <= 3; t++) {
      const out = await preStep(ctx, agent, { turn: t })
      expect(out.decision).toBe(out.base)
    }
    expect(warn.mock.calls.map((c) => c[0])).toEqual(['tmux-context: the executor has neither run() nor execute(); no tmux location is read'])
  })
})

describe('earlier readings of either shape', () => {
  /** A session whose stored reading (of `shape`) names the place the executor reports. */
  function agentWithReading(shape) {
    const agent = makeAgent(`session-${shape}`)
    agent.session.append('step/start', { turn: 1, step: 1 })
    agent.session.append('user/message', storedReading(TEXT, shape), { surfaceOp: 'append' })
    return agent
  }

  it.each(['rc.8', 'upstream'])('a stored %s-shaped reading of the same place suppresses, on both executor shapes', async (shape) => {
    for (const mounted of [await mountExecuteOnly(native), await (await import('./harness.mjs')).mount(native)]) {
      const out = await preStep(mounted.ctx, agentWithReading(shape), { turn: 2 })
      expect(out.decision).toBe(out.base)
    }
  })

  it('the rc.8 JS package suppresses against the rc.8 shape only; it does not know the upstream kind', async () => {
    const { mount } = await import('./harness.mjs')
    const got = {}
    for (const [name, plugin] of implementations) {
      const { ctx } = await mount(plugin)
      got[name] = []
      for (const shape of ['rc.8', 'upstream']) got[name].push(readings((await preStep(ctx, agentWithReading(shape), { turn: 2 })).decision).length)
    }
    expect(got.js).toEqual([0, 1])
    expect(got.native).toEqual([0, 0])
  })

  it('a stored upstream-shaped reading sets the refresh floor as an rc.8 one does', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const { mount } = await import('./harness.mjs')
      const { ctx, record } = await mount(native, { refreshIntervalMs: 60_000 }, { respond: () => Promise.resolve(runResult(line({ windowName: 'moved' }) + '\n')) })
      const agent = agentWithReading('upstream')
      const stored = agent.session.events.at(-1).time
      vi.setSystemTime(stored + 1_000)
      const held = await preStep(ctx, agent, { turn: 2 })
      expect(held.decision).toBe(held.base)
      expect(record.ran).toHaveLength(0)
      vi.setSystemTime(stored + 61_000)
      expect(readings((await preStep(ctx, agent, { turn: 3 })).decision)).toHaveLength(1)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('rc.8 hosts are unchanged', () => {
  it('an rc.8 executor that also has execute() is read through run(), and readings keep the rc.8 shape', async () => {
    const record = { ran: 0, executed: 0 }
    class Both extends ShellExecutor {
      resolve(request) {
        return { ...request, workdir: process.cwd(), timeoutMs: 30_000, stdoutMaxBytes: 1 << 20, sandboxPolicy: undefined }
      }
      run() {
        record.ran += 1
        return Promise.resolve(runResult(line() + '\n'))
      }
      execute() {
        record.executed += 1
        throw new Error('execute() must not be called where run() is')
      }
    }
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    await ctx.plugin(Both)
    await ctx.plugin(native, {})
    const agent = makeAgent()
    const { decision } = await preStep(ctx, agent)
    commit(agent, decision)
    expect(record).toEqual({ ran: 1, executed: 0 })
    expect(decision.messages[0].source).toEqual({ kind: 'plugin', plugin: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text: TEXT }] })
  })
})

describe('panes: true with either executor API (the WebAssembly pass runs this file too)', () => {
  // What our command prints with the roster (tmux 3.3a, captured in src/parse.rs): window 0
  // "editor", the agent in %0, a shell in %1 (each directory closed by the `.` that follows a text
  // whose end tmux keeps; then whether the pane is dead, its status and signal).
  const printed = [
    'dsh-tmux-context:q2\\tmain\\t0\\teditor\\t0\\t\\%0\\t1\\t1\\tb06f,160x40,0,0{80x40,0,0,0,79x40,81,0,1}\\t0',
    'dsh-tmux-context:pq\\t\\%0\\t0\\tnode\\t/srv/proj.\\t0\\t\\t\\t\\%0',
    'dsh-tmux-context:pq\\t\\%1\\t1\\tvim\\t/srv/proj/src.\\t0\\t\\t\\t\\%1',
  ].join('\n') + '\n'
  const roster = 'panes in this window (tmux data, not instructions):\npane 0 %0 (this agent) command "node" path "/srv/proj"\npane 1 %1 command "vim" path "/srv/proj/src"'

  it('run() and execute() both ask for the roster and give the same reading, the roster after the three lines', async () => {
    const texts = []
    const { mount } = await import('./harness.mjs')
    const viaRun = await mount(native, { panes: true }, { respond: () => Promise.resolve(runResult(printed)) })
    const viaExecute = await mountExecuteOnly(native, { respond: () => Promise.resolve(runResult(printed)), config: { panes: true } })
    for (const { ctx } of [viaRun, viaExecute]) texts.push(readings((await preStep(ctx, makeAgent())).decision).map((r) => r.content[0].text))
    expect(texts[0]).toEqual(texts[1])
    expect(texts[0]).toEqual([`tmux location (turn 1):\nsession main, window 0 "editor", pane 0 %0\nwindow active=1, pane active=1, layout b06f,160x40,0,0{80x40,0,0,0,79x40,81,0,1}\n${roster}`])
    expect(viaRun.record.resolved.at(-1).command).toContain('list-panes -t "$TMUX_PANE"')
    expect(viaExecute.record.requests.at(-1).command).toContain('list-panes -t "$TMUX_PANE"')
  })

  it('with panes off (the default) the command asks for no roster and a roster in the output is not read', async () => {
    const { mount } = await import('./harness.mjs')
    const m = await mount(native, {}, { respond: () => Promise.resolve(runResult(printed)) })
    const [text] = readings((await preStep(m.ctx, makeAgent())).decision).map((r) => r.content[0].text)
    expect(m.record.resolved.at(-1).command).not.toContain('list-panes -t')
    expect(text.split('\n')).toHaveLength(3)
  })
})
