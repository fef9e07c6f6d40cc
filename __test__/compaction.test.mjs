// A reading the model can no longer see counts as absent (CONTRACT "Beyond"): a compaction, written
// into a real Session exactly as dsh-compaction-basic writes it, shadows the newest reading from
// `session.surface`; the native package then reads tmux again and injects, the JS package does not.
// Both run side by side; everywhere a compaction does not shadow the reading they agree.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { agentEvents } from '@deepseek-ai/dsh-agent'
import { compact, implementations, isPassThrough, line, makeAgent, mount, native, preStep, readings, runResult, turn } from './harness.mjs'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

/** A user's own message on the surface; returns its event. */
function say(agent, text) {
  return agent.session.append('user/message', createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }), { surfaceOp: 'append' })
}

/** Compacts everything on the surface so far. */
function compactAll(agent, turnNumber) {
  const nodes = agent.session.surface.nodes
  return compact(agent, nodes[0], nodes.at(-1), turnNumber)
}

/** The seqs of this plugin's readings that the model still sees. */
function visibleReadings(agent) {
  const onSurface = new Set(agent.session.surface.nodes)
  return agent.session.events.filter((e) => onSurface.has(e.seq) && e.type === 'user/message' && e.data.source?.plugin === 'tmux-context')
}

/** Runs the same scenario with each implementation; returns { native, js }. */
async function sideBySide(scenario) {
  const out = {}
  for (const [name, plugin] of implementations) out[name] = await scenario(plugin, name)
  return out
}

/** Whether a pre-step's decision carries a reading, and its first line. */
const carried = ({ decision }) => readings(decision).map((m) => m.content[0].text.split('\n')[0])

describe('a compaction that shadows the reading', () => {
  it('is read again at the next turn (JS: never again while tmux is unchanged)', async () => {
    const got = await sideBySide(async (plugin) => {
      const { ctx, record } = await mount(plugin)
      const agent = makeAgent()
      const turns = [carried(await turn(ctx, agent, 1))]
      say(agent, 'where am I?')
      turns.push(carried(await turn(ctx, agent, 2)))
      expect(compactAll(agent, null)).toContain(agent.session.events.find((e) => e.data?.source?.plugin === 'tmux-context').seq)
      turns.push(carried(await turn(ctx, agent, 3)))
      turns.push(carried(await turn(ctx, agent, 4)))
      return { turns, queries: record.ran.length, visible: visibleReadings(agent).length }
    })
    expect(got.native.turns).toEqual([['tmux location (turn 1):'], [], ['tmux location (turn 3):'], []])
    expect(got.native.visible).toBe(1)
    expect(got.js.turns).toEqual([['tmux location (turn 1):'], [], [], []])
    expect(got.js.visible).toBe(0)
    // Both query every first step; only the native package counts the shadowed reading as absent.
    expect(got.native.queries).toBe(4)
    expect(got.js.queries).toBe(4)
  })

  it('the re-read names the same place, byte for byte as the first reading', async () => {
    const { ctx } = await mount(implementations[0][1])
    const agent = makeAgent()
    const first = readings((await turn(ctx, agent, 1)).decision)[0]
    compactAll(agent, null)
    const again = readings((await turn(ctx, agent, 2)).decision)[0]
    expect(again.content[0].text).toBe(first.content[0].text.replace('(turn 1)', '(turn 2)'))
    expect(again.source).toEqual({ kind: 'plugin', plugin: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text: again.content[0].text }] })
    expect(again.id).not.toBe(first.id)
  })

  it('a shadowed reading tmux cannot re-read is asked about once, not again at every later replacement (from a break-in)', async () => {
    let answer = () => Promise.resolve(runResult(line() + '\n'))
    const { ctx, record } = await mount(native, {}, { respond: () => answer() })
    const agent = makeAgent()
    await turn(ctx, agent, 1)
    compactAll(agent, 1)
    // Now outside tmux (a resumed session elsewhere): the query exits 10.
    answer = () => Promise.resolve({ ...runResult(''), exitCode: 10 })
    const before = record.ran.length
    for (let step = 2; step <= 7; step++) {
      // A replacement of the step's own messages (the tool-result pruner's kind), not of the reading.
      const a = say(agent, `tool output ${step}`)
      const b = say(agent, `more ${step}`)
      compact(agent, a.seq, b.seq, 1)
      expect(isPassThrough(await preStep(ctx, agent, { turn: 1, step }))).toBe(true)
    }
    expect(record.ran.length - before).toBe(1)
  })

  it('two compactions in a row: each shadowed reading is read again once', async () => {
    const got = await sideBySide(async (plugin) => {
      const { ctx } = await mount(plugin)
      const agent = makeAgent()
      const turns = [carried(await turn(ctx, agent, 1))]
      compactAll(agent, null)
      turns.push(carried(await turn(ctx, agent, 2)))
      say(agent, 'and now?')
      compactAll(agent, null)
      turns.push(carried(await turn(ctx, agent, 3)))
      turns.push(carried(await turn(ctx, agent, 4)))
      return { turns, visible: visibleReadings(agent).length }
    })
    expect(got.native.turns).toEqual([['tmux location (turn 1):'], ['tmux location (turn 2):'], ['tmux location (turn 3):'], []])
    expect(got.native.visible).toBe(1)
    expect(got.js.turns).toEqual([['tmux location (turn 1):'], [], [], []])
  })

  it('a compaction that leaves the reading on the surface brings no reading (the same as JS)', async () => {
    const got = await sideBySide(async (plugin) => {
      const { ctx, record } = await mount(plugin)
      const agent = makeAgent()
      const turns = [carried(await turn(ctx, agent, 1))]
      const a = say(agent, 'first question')
      say(agent, 'second question')
      const b = say(agent, 'third question')
      compact(agent, a.seq, b.seq)
      turns.push(carried(await turn(ctx, agent, 2)))
      return { turns, queries: record.ran.length }
    })
    expect(got.native).toEqual(got.js)
    expect(got.native.turns).toEqual([['tmux location (turn 1):'], []])
  })

  it('a shadowed reading sets no refresh floor (JS: held back by it, no query)', async () => {
    const got = await sideBySide(async (plugin) => {
      vi.useFakeTimers({ toFake: ['Date'] })
      vi.setSystemTime(1_000_000)
      const { ctx, record } = await mount(plugin, { refreshIntervalMs: 60_000 })
      const agent = makeAgent()
      const turns = [carried(await turn(ctx, agent, 1))]
      vi.setSystemTime(1_005_000)
      turns.push(carried(await turn(ctx, agent, 2)))
      const queriedBefore = record.ran.length
      compactAll(agent, null)
      vi.setSystemTime(1_010_000)
      turns.push(carried(await turn(ctx, agent, 3)))
      vi.setSystemTime(1_015_000)
      turns.push(carried(await turn(ctx, agent, 4)))
      vi.useRealTimers()
      return { turns, queriedBefore, queries: record.ran.length }
    })
    // Within the floor both hold back while the reading is visible.
    expect(got.native.queriedBefore).toBe(1)
    expect(got.js.queriedBefore).toBe(1)
    expect(got.native.turns).toEqual([['tmux location (turn 1):'], [], ['tmux location (turn 3):'], []])
    expect(got.native.queries).toBe(2)
    expect(got.js.turns).toEqual([['tmux location (turn 1):'], [], [], []])
    expect(got.js.queries).toBe(1)
  })

  it('a resume whose stored log ends in a compaction reads again at its first turn', async () => {
    const got = await sideBySide(async (plugin) => {
      const first = await mount(plugin)
      const agent = makeAgent('session-stored')
      await turn(first.ctx, agent, 1)
      say(agent, 'a long task')
      compactAll(agent, null)
      // A new process: a new plugin, a new Session seeded with the stored log.
      const { ctx } = await mount(plugin)
      const resumed = makeAgent('session-stored', agent.session.events)
      expect(resumed.session.surface.replaceGeneration).toBe(1)
      return { turns: [carried(await turn(ctx, resumed, 2)), carried(await turn(ctx, resumed, 3))] }
    })
    expect(got.native.turns).toEqual([['tmux location (turn 2):'], []])
    expect(got.js.turns).toEqual([[], []])
  })

  it('a resume whose compaction left the reading visible schedules as JS', async () => {
    const got = await sideBySide(async (plugin) => {
      const first = await mount(plugin)
      const agent = makeAgent('session-stored')
      await turn(first.ctx, agent, 1)
      const a = say(agent, 'a')
      const b = say(agent, 'b')
      compact(agent, a.seq, b.seq)
      const { ctx } = await mount(plugin)
      return carried(await turn(ctx, makeAgent('session-stored', agent.session.events), 2))
    })
    expect(got.native).toEqual([])
    expect(got.js).toEqual([])
  })
})

describe('a compaction inside next() (as dsh-compaction-basic runs it, a pre-step listener after ours)', () => {
  /** Mounts `plugin` and, after it, a pre-step listener that compacts once when `armed.at` is this step. */
  async function withCompactor(plugin) {
    const mounted = await mount(plugin)
    const armed = { at: undefined, ran: 0 }
    mounted.ctx.on('agent/pre-step', async ({ agent, turn: t, step }, next) => {
      if (armed.at !== undefined && armed.at.turn === t && armed.at.step === step) {
        compactAll(agent, t)
        armed.ran += 1
      }
      return next()
    })
    return { ...mounted, armed }
  }

  it('on a later step without an executor, or without an agent, the decision passes through (as JS)', async () => {
    const got = await sideBySide(async (plugin) => {
      const agent = makeAgent()
      await turn((await mount(plugin)).ctx, agent, 1)
      const { ctx } = await mount(plugin, {}, { executor: 'none' })
      ctx.on('agent/pre-step', async ({ agent: a }, next) => {
        if (a) compactAll(a, 1)
        return next()
      })
      const noExecutor = await preStep(ctx, agent, { turn: 1, step: 2 })
      const noAgent = await agentEvents(ctx, agent).waterfall('agent/pre-step', { messages: [], turn: 1, step: 2, signal: new AbortController().signal, agent: undefined }, () => Promise.resolve({ kind: 'enter', messages: [] }))
      return [isPassThrough(noExecutor), readings(noAgent)]
    })
    expect(got.native).toEqual([true, []])
    expect(got.js).toEqual(got.native)
  })

  it('on a later step of a turn: the reading comes in that same step (JS: none)', async () => {
    const got = await sideBySide(async (plugin) => {
      const { ctx, record, armed } = await withCompactor(plugin)
      const agent = makeAgent()
      const steps = [carried(await turn(ctx, agent, 1))]
      say(agent, 'run a tool')
      steps.push(carried(await preStep(ctx, agent, { turn: 1, step: 2 })))
      const queriesBefore = record.ran.length
      armed.at = { turn: 1, step: 3 }
      const step3 = await preStep(ctx, agent, { turn: 1, step: 3 })
      expect(armed.ran).toBe(1)
      steps.push(carried(step3))
      if (step3.decision.kind === 'enter') for (const m of step3.decision.messages) agent.session.append('user/message', m, { surfaceOp: 'append' })
      steps.push(carried(await preStep(ctx, agent, { turn: 1, step: 4 })))
      steps.push(carried(await turn(ctx, agent, 2)))
      return { steps, queriesBefore, queries: record.ran.length }
    })
    expect(got.native.steps).toEqual([['tmux location (turn 1):'], [], ['tmux location (turn 1):'], [], []])
    // A step after the first costs no query unless a compaction shadowed the reading.
    expect(got.native.queriesBefore).toBe(1)
    expect(got.native.queries).toBe(3)
    expect(got.js.steps).toEqual([['tmux location (turn 1):'], [], [], [], []])
    expect(got.js.queriesBefore).toBe(1)
  })

  it('on the first step: the reading comes in that same step', async () => {
    const got = await sideBySide(async (plugin) => {
      const { ctx, armed } = await withCompactor(plugin)
      const agent = makeAgent()
      const turns = [carried(await turn(ctx, agent, 1))]
      say(agent, 'long conversation')
      armed.at = { turn: 2, step: 1 }
      turns.push(carried(await turn(ctx, agent, 2)))
      return turns
    })
    expect(got.native).toEqual([['tmux location (turn 1):'], ['tmux location (turn 2):']])
    expect(got.js).toEqual([['tmux location (turn 1):'], []])
  })

  it('keeps the pass-through rules on later steps: reject, abort and the downstream messages', async () => {
    const { ctx, armed } = await withCompactor(implementations[0][1])
    const agent = makeAgent()
    await turn(ctx, agent, 1)
    const downstream = { kind: 'enter', messages: [createUserMessage({ content: [{ type: 'text', text: 'queued' }], source: { kind: 'user' } })] }
    armed.at = { turn: 1, step: 2 }
    const entered = await preStep(ctx, agent, { turn: 1, step: 2, downstream })
    expect(entered.decision.messages.slice(1)).toEqual(downstream.messages)
    expect(entered.decision.messages[1]).toBe(downstream.messages[0])
    expect(carried(entered)).toEqual(['tmux location (turn 1):'])

    const rejected = { kind: 'reject', reason: 'no' }
    const again = makeAgent('session-r')
    await turn(ctx, again, 1)
    armed.at = { turn: 1, step: 2 }
    expect((await preStep(ctx, again, { turn: 1, step: 2, downstream: rejected })).decision).toBe(rejected)

    const aborted = new AbortController()
    aborted.abort()
    const third = makeAgent('session-a2')
    await turn(ctx, third, 1)
    armed.at = { turn: 1, step: 2 }
    const out = await preStep(ctx, third, { turn: 1, step: 2, signal: aborted.signal })
    expect(out.decision).toBe(out.base)
  })

  it('a later step whose compaction leaves the reading visible passes through without a query', async () => {
    const { ctx, record } = await mount(implementations[0][1])
    const agent = makeAgent()
    await turn(ctx, agent, 1)
    const a = say(agent, 'a')
    const b = say(agent, 'b')
    ctx.on('agent/pre-step', async ({ agent: ag }, next) => {
      compact(ag, a.seq, b.seq, 1)
      return next()
    })
    const out = await preStep(ctx, agent, { turn: 1, step: 2 })
    expect(out.decision).toBe(out.base)
    expect(record.ran.length).toBe(1)
  })
})

describe('a compaction outside next() during a turn (as the overflow recovery of a model request)', () => {
  it('the next step of the turn reads again (JS: none)', async () => {
    const got = await sideBySide(async (plugin) => {
      const { ctx, record } = await mount(plugin)
      const agent = makeAgent()
      const steps = [carried(await turn(ctx, agent, 1))]
      say(agent, 'a reply too big for the window')
      // dsh-compaction-basic's `agent/request-error` listener compacts and retries the request; no
      // pre-step runs between.
      compactAll(agent, 1)
      const step2 = await preStep(ctx, agent, { turn: 1, step: 2 })
      steps.push(carried(step2))
      if (step2.decision.kind === 'enter') for (const m of step2.decision.messages) agent.session.append('user/message', m, { surfaceOp: 'append' })
      steps.push(carried(await preStep(ctx, agent, { turn: 1, step: 3 })))
      return { steps, queries: record.ran.length }
    })
    expect(got.native.steps).toEqual([['tmux location (turn 1):'], ['tmux location (turn 1):'], []])
    expect(got.native.queries).toBe(2)
    expect(got.js.steps).toEqual([['tmux location (turn 1):'], [], []])
  })
})

describe('sessions without a surface keep the contract as it was', () => {
  it('a surface that was never replaced shadows nothing, whatever its nodes list (the same as JS)', async () => {
    const got = await sideBySide(async (plugin) => {
      const { ctx } = await mount(plugin)
      const real = makeAgent()
      const surface = { replaceGeneration: 0, nodes: [] }
      const agent = { ...real, session: { id: real.session.id, get events() { return real.session.events }, surface } }
      const turns = []
      for (let t = 1; t <= 3; t++) {
        const out = await preStep(ctx, agent, { turn: t })
        turns.push(carried(out))
        if (out.decision.kind === 'enter') for (const m of out.decision.messages) real.session.append('user/message', m, { surfaceOp: 'append' })
      }
      return turns
    })
    expect(got.native).toEqual(got.js)
    expect(got.native).toEqual([['tmux location (turn 1):'], [], []])
  })

  it('a surface whose replaceGeneration is not a finite number counts as no surface', async () => {
    const { ctx, record } = await mount(implementations[0][1])
    const real = makeAgent()
    await turn(ctx, real, 1)
    compactAll(real, null)
    const agent = { ...real, session: { id: real.session.id, events: real.session.events, surface: { replaceGeneration: Number.NaN, nodes: [] } } }
    expect(carried(await preStep(ctx, agent, { turn: 2 }))).toEqual([])
    expect(carried(await preStep(ctx, agent, { turn: 2, step: 2 }))).toEqual([])
    expect(record.ran.length).toBe(2)
  })

  it('a stand-in session (events only) schedules as the JS package', async () => {
    const got = await sideBySide(async (plugin) => {
      const { ctx } = await mount(plugin)
      const real = makeAgent()
      await turn(ctx, real, 1)
      compactAll(real, null)
      // The same events, without `surface`: nothing says the reading was shadowed.
      const standIn = { ...real, session: { id: real.session.id, events: [...real.session.events] } }
      return [carried(await preStep(ctx, standIn, { turn: 2 })), carried(await preStep(ctx, standIn, { turn: 2, step: 2 }))]
    })
    expect(got.native).toEqual(got.js)
    expect(got.native).toEqual([[], []])
  })

  it('a surface that cannot be read keeps the reading (no warning, no turn failure)', async () => {
    const { ctx } = await mount(implementations[0][1])
    const warn = vi.spyOn(ctx.logger, 'warn')
    const real = makeAgent()
    await turn(ctx, real, 1)
    const broken = { ...real, session: { id: real.session.id, events: real.session.events, get surface() { throw new Error('no surface here') } } }
    expect(carried(await preStep(ctx, broken, { turn: 2 }))).toEqual([])
    expect(carried(await preStep(ctx, broken, { turn: 2, step: 2 }))).toEqual([])
    expect(warn).not.toHaveBeenCalled()
  })
})
