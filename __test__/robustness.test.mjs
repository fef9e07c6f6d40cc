// Odd but possible inputs, found by trying to break the package: each one side by side with the JS
// reference where the JS reference does not itself fail, and never a crash, a stray print or a
// failed turn caused by the plugin.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { agentEvents } from '@deepseek-ai/dsh-agent'
import { implementations, isPassThrough, line, mount, native, preStep, readings, reference, runResult } from './harness.mjs'

afterEach(() => vi.restoreAllMocks())

const STATE = 'session main, window 1 "editor", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3'
const readingEvent = (state, time = Date.now()) => ({
  type: 'user/message',
  time,
  data: { content: [{ type: 'text', text: `tmux location (turn 1):\n${state}` }], source: { kind: 'plugin', plugin: 'tmux-context' } },
})
/** An agent over a session object that is not the harness's Session (another store, a test double). */
const agentOver = (session) => ({ id: 'odd', options: {}, session, status: 'running' })

/** `gc()`, in a test worker started without --expose-gc. */
function fullGc() {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc')
}

/** Full GCs with event-loop turns between them (Node-API finalizers run on a later turn). */
async function gcWithTurns(turns = 3) {
  const gc = fullGc()
  gc()
  for (let i = 0; i < turns; i++) {
    await new Promise((r) => setTimeout(r, 5))
    gc()
  }
}

async function both(run) {
  const out = {}
  for (const [name, plugin] of implementations) out[name] = await run(plugin)
  return out
}

async function outcome(plugin, { config = {}, respond, payload = {}, downstream, setup } = {}) {
  const m = await mount(plugin, config, respond ? { respond } : {})
  const warn = vi.spyOn(m.ctx.logger, 'warn')
  const results = []
  for (const step of setup ?? [{}]) {
    if (step.before) await step.before()
    const out = await preStep(m.ctx, step.agent ?? payload.agent ?? agentOver({ events: [] }), { ...payload, ...step, downstream: step.downstream ?? downstream })
    results.push(isPassThrough(out) ? 'pass' : `reading:${readings(out.decision).length}`)
    if (step.after) step.after()
  }
  return { results, warnings: warn.mock.calls.length }
}

describe('session logs that are not the harness Session', () => {
  /** `readingEvent(STATE)` with its first content block, or that block's text, replaced. */
  const reshaped = ({ content, text, time } = {}) => {
    const event = readingEvent(STATE, time)
    const [block] = event.data.content
    if (text !== undefined) block.text = text(block.text)
    if (content !== undefined) event.data.content = content(block)
    return event
  }
  /** Each of `events`' outcome in a session of its own, with `config`, for both packages. */
  const eachAlone = (events, config = {}) => both(async (plugin) => Promise.all(events.map((event) => outcome(plugin, { config, payload: { agent: agentOver({ events: [event] }) } }))))

  it('a reading whose content is a Set, or another iterable, counts by its first block, as the JS package destructures it', async () => {
    const image = { type: 'image', image: 'x' }
    const out = await eachAlone([
      reshaped({ content: (block) => new Set([block, image]) }),
      reshaped({ content: (block) => ({ *[Symbol.iterator]() { yield block } }) }),
      reshaped({ content: (block) => new Set([image, block]) }),
      reshaped({ content: () => new Set() }),
    ])
    expect(out.native).toEqual(out.js)
    expect(out.native.map((o) => o.results[0])).toEqual(['pass', 'pass', 'reading:1', 'reading:1'])
  })

  it('a text that is an array, or another object with indexOf and slice, reads as the JS package reads it: under a refresh floor, and compared', async () => {
    const texts = [
      (text) => text.split('\n'), // indexOf('\n') is -1: the state is ''
      (text) => [text, '\n', STATE], // slice gives an array: a state no reading has
      () => ({ indexOf: () => 0, slice: () => STATE }), // a string state: the reading's own
    ]
    // Just now, within the floor: no query. An hour ago: compared (only the last is the same place).
    const recent = await eachAlone(texts.map((text) => reshaped({ text })), { refreshIntervalMs: 60_000 })
    expect(recent.native).toEqual(recent.js)
    expect(recent.native.map((o) => o.results[0])).toEqual(['pass', 'pass', 'pass'])
    const old = await eachAlone(texts.map((text) => reshaped({ text, time: Date.now() - 3_600_000 })), { refreshIntervalMs: 60_000 })
    expect(old.native).toEqual(old.js)
    expect(old.native.map((o) => o.results[0])).toEqual(['reading:1', 'reading:1', 'pass'])
  })

  it('content and text read with the JS package’s own reads: a length to convert, own methods, a Proxy (from a break-in)', async () => {
    const moved = STATE.replace('editor', 'moved')
    const out = await eachAlone([
      reshaped({ content: (block) => ({ 0: block, length: '1', [Symbol.iterator]: Array.prototype[Symbol.iterator] }) }),
      reshaped({ content: (block) => new Proxy([block], { get: (array, key) => (key === 'length' ? { valueOf: () => 1 } : array[key]) }) }),
      reshaped({ text: (text) => Object.assign(new String(text), { slice: () => moved }) }),
      reshaped({ text: () => Object.assign(Object.create(String.prototype), { indexOf: () => 0, slice: () => STATE }) }),
      reshaped({ text: () => new Proxy({ indexOf: () => 0, slice: () => STATE }, { getPrototypeOf() { throw new Error('no prototype') } }) }),
    ])
    expect(out.native).toEqual(out.js)
    expect(out.native.map((o) => o.results[0])).toEqual(['pass', 'pass', 'reading:1', 'pass', 'pass'])
  })

  it('a primitive first block reads through its prototype, as the JS package reads `block?.type` (from a break-in)', async () => {
    const text = `tmux location (turn 1):\n${STATE}`
    Object.defineProperties(Number.prototype, { type: { value: 'text', configurable: true }, text: { value: text, configurable: true } })
    try {
      const out = await eachAlone([reshaped({ content: () => [5] })], { refreshIntervalMs: 60_000 })
      expect(out.native).toEqual(out.js)
      expect(out.native.map((o) => o.results[0])).toEqual(['pass'])
    } finally {
      delete Number.prototype.type
      delete Number.prototype.text
    }
  })

  it('a text the JS package cannot read (a number, an object without indexOf) counts as no text: a reading, no warning (JS fails the turn)', async () => {
    const slicing = () => ({ indexOf: () => 0, slice() { throw new Error('no slice') } })
    for (const text of [() => 7, () => ({ slice: () => STATE }), slicing]) {
      const out = await outcome(native, { config: { refreshIntervalMs: 60_000 }, payload: { agent: agentOver({ events: [reshaped({ text })] }) } })
      expect(out).toEqual({ results: ['reading:1'], warnings: 0 })
    }
  })

  it('content that is not iterable (the JS package fails the turn) counts as no text: a reading, no warning', async () => {
    const shapes = [(block) => ({ 0: block, length: 1 }), (block) => ({ 0: block, length: 0 }), (block) => ({ 0: block, length: '1' })]
    const results = []
    for (const content of shapes) results.push(await outcome(native, { payload: { agent: agentOver({ events: [reshaped({ content })] }) } }))
    expect(results).toEqual(Array(3).fill({ results: ['reading:1'], warnings: 0 }))
  })

  it('a log replaced in place is read afresh (the index checks what it saw)', async () => {
    const out = await both((plugin) => {
      const session = { events: [readingEvent(STATE)] }
      const agent = agentOver(session)
      return outcome(plugin, { setup: [{ agent, after: () => (session.events = [readingEvent('other')]) }, { agent }] })
    })
    expect(out.native).toEqual(out.js)
    expect(out.native.results).toEqual(['pass', 'reading:1'])
  })

  it('a log that shrank, or whose last event was replaced and collected, is read afresh', async () => {
    const out = await both(async (plugin) => {
      const shrunk = { events: [{ type: 'turn/start', data: {} }, readingEvent(STATE)] }
      const renewed = { events: [{ type: 'turn/start', data: {} }, readingEvent(STATE)] }
      return outcome(plugin, {
        setup: [
          { agent: agentOver(shrunk), after: () => (shrunk.events = [{ type: 'turn/start', data: {} }]) },
          { agent: agentOver(shrunk) },
          { agent: agentOver(renewed), after: () => (renewed.events = [{ type: 'turn/start', data: {} }, { type: 'turn/start', data: {} }]) },
          { agent: agentOver(renewed), before: gcWithTurns },
        ],
      })
    })
    expect(out.native).toEqual(out.js)
    expect(out.native.results).toEqual(['pass', 'reading:1', 'pass', 'reading:1'])
  })

  it('a log object with length and an iterator but no indices is read as [...events] reads it (from a break-in)', async () => {
    const out = await both(async (plugin) => {
      class Log {
        #events = []
        get length() {
          return this.#events.length
        }
        push(e) {
          this.#events.push(e)
        }
        [Symbol.iterator]() {
          return this.#events[Symbol.iterator]()
        }
      }
      let windowName = 'editor'
      const m = await mount(plugin, {}, { respond: () => Promise.resolve(runResult(line({ windowName }) + '\n')) })
      const warn = vi.spyOn(m.ctx.logger, 'warn')
      const events = new Log()
      const agent = agentOver({ events })
      const got = []
      for (let t = 1; t <= 3; t++) {
        if (t === 3) windowName = 'renamed'
        const { decision } = await preStep(m.ctx, agent, { turn: t })
        got.push(readings(decision).length)
        for (const message of decision.messages) events.push({ type: 'user/message', time: Date.now(), data: message })
      }
      return { got, warnings: warn.mock.calls.length }
    })
    expect(out.native).toEqual(out.js)
    expect(out.native).toEqual({ got: [1, 0, 1], warnings: 0 })
  })

  it('events appended after a hole are read newest first, as the JS package reads them', async () => {
    const out = await both((plugin) => {
      const session = { events: [] }
      const agent = agentOver(session)
      return outcome(plugin, { setup: [{ agent, after: () => (session.events = [null, readingEvent('other')]) }, { agent }] })
    })
    expect(out.native).toEqual(out.js)
  })

  it('array-likes (a Proxy) for events and for downstream messages', async () => {
    const out = await both((plugin) =>
      outcome(plugin, { payload: { agent: agentOver({ events: new Proxy([readingEvent('x')], {}) }) }, downstream: { kind: 'enter', messages: new Proxy([], {}) } }),
    )
    expect(out.native).toEqual(out.js)
    expect(out.native).toEqual({ results: ['reading:1'], warnings: 0 })
  })

  it('an event time given as a numeric string still holds the refresh interval', async () => {
    const out = await both((plugin) =>
      outcome(plugin, {
        config: { refreshIntervalMs: 60_000 },
        respond: () => Promise.resolve(runResult(line({ windowName: 'moved' }))),
        payload: { agent: agentOver({ events: [readingEvent(STATE, String(Date.now()))] }) },
      }),
    )
    expect(out.native).toEqual(out.js)
    expect(out.native.results).toEqual(['pass'])
  })
})

describe('beyond the JS package: values JS would throw on, and timers of another shape', () => {
  it('an event time that is a Symbol holds nothing back, and a Symbol turn is shown as String() shows it', async () => {
    const { ctx } = await mount(native, { refreshIntervalMs: 60_000 }, { respond: () => Promise.resolve(runResult(line({ windowName: 'moved' }))) })
    const warn = vi.spyOn(ctx.logger, 'warn')
    const held = await preStep(ctx, agentOver({ events: [readingEvent(STATE, Symbol('time'))] }))
    expect(readings(held.decision)).toHaveLength(1)
    const turn = await preStep(ctx, agentOver({ events: [] }), { turn: Symbol('t') })
    expect(readings(turn.decision)[0].content[0].text.split('\n')[0]).toBe('tmux location (turn Symbol(t)):')
    expect(warn).not.toHaveBeenCalled()
  })

  it('an event’s source.kind is read once, as the JS package reads it: a getter that throws on a second read changes nothing (from a break-in)', async () => {
    const out = await both((plugin) => {
      let reads = 0
      const source = { get kind() {
        if (++reads > 1) throw new Error('kind read twice')
        return 'other-plugin'
      } }
      const other = { type: 'user/message', time: Date.now(), data: { content: [{ type: 'text', text: 'x' }], source } }
      return outcome(plugin, { payload: { agent: agentOver({ events: [readingEvent(STATE), other] }) } })
    })
    expect(out.native).toEqual(out.js)
    expect(out.native).toEqual({ results: ['pass'], warnings: 0 })
  })

  it('a reading whose content is empty counts as none, as a non-text one does', async () => {
    const empty = { ...readingEvent(STATE), data: { ...readingEvent(STATE).data, content: [] } }
    const out = await both((plugin) => outcome(plugin, { payload: { agent: agentOver({ events: [empty] }) } }))
    expect(out.native).toEqual(out.js)
    expect(out.native.results).toEqual(['reading:1'])
  })

  it('a setTimeout that returns a number (no unref) still bounds the query, and a late rejection after the bound changes nothing', async () => {
    const realSetTimeout = globalThis.setTimeout
    const numbers = vi.spyOn(globalThis, 'setTimeout').mockImplementation((fn, ms) => (realSetTimeout(fn, ms), 7))
    try {
      let reject
      const { ctx } = await mount(native, { queryTimeoutMs: 1 }, { respond: () => new Promise((_, r) => (reject = r)) })
      const warn = vi.spyOn(ctx.logger, 'warn')
      const out = await preStep(ctx, agentOver({ events: [] }))
      expect(isPassThrough(out)).toBe(true)
      reject(new Error('late'))
      await new Promise((r) => realSetTimeout(r, 10))
      expect(warn).not.toHaveBeenCalled()
    } finally {
      numbers.mockRestore()
    }
  })
})

describe('payloads and decisions', () => {
  it('reads the payload as the JS package destructures it, before next(): agent, turn, step, signal (from a break-in)', async () => {
    const reads = {}
    for (const [name, plugin] of implementations) {
      let listener
      plugin.apply({ on: (_event, fn) => (listener = fn), get: () => undefined, logger: { warn() {}, debug() {} } }, {})
      const log = []
      const fields = { agent: agentOver({ events: [] }), turn: 3, step: 1, signal: new AbortController().signal }
      const payload = new Proxy(fields, { get: (target, key) => (log.push(String(key)), target[key]) })
      const decision = { kind: 'enter', messages: [] }
      await listener(payload, () => (log.push('next()'), Promise.resolve(decision)))
      reads[name] = log
    }
    expect(reads.native).toEqual(reads.js)
    expect(reads.native).toEqual(['agent', 'turn', 'step', 'signal', 'next()'])
  })

  it('a payload whose reads throw, or a turn String() cannot convert: the step passes with a warning (the JS package throws)', async () => {
    let listener
    const warnings = []
    const ctx = { on: (_event, fn) => (listener = fn), get: () => undefined, logger: { warn: (m) => warnings.push(m), debug() {} } }
    native.apply(ctx, {})
    const decision = { kind: 'enter', messages: [] }
    const next = () => Promise.resolve(decision)
    const throwing = Object.fromEntries(['agent', 'step', 'signal', 'turn'].map((key) => [key, { get: () => { throw new Error(key) }, enumerable: true }]))
    await expect(listener(Object.defineProperties({}, throwing), next)).resolves.toBe(decision)
    await expect(listener(null, next)).resolves.toBe(decision)
    const turn = { toString: () => { throw new Error('turn') } }
    await expect(listener({ step: 1, signal: new AbortController().signal, turn, agent: agentOver({ events: [] }) }, next)).resolves.toBe(decision)
    // A payload that cannot be read, and a turn String() cannot convert: one warning each, the contract's listener failure.
    expect(warnings).toEqual([
      ...Array(2).fill('tmux-context: pre-step failed: the pre-step payload cannot be read; passing the step through unchanged'),
      'tmux-context: pre-step failed: turn; passing the step through unchanged',
    ])
    // The JS package's destructuring throws on the first.
    let jsListener
    reference.apply({ ...ctx, on: (_event, fn) => (jsListener = fn) }, {})
    await expect(jsListener(Object.defineProperties({}, throwing), next)).rejects.toThrow('agent')
  })

  it.each([
    ['a primitive signal', 'x', ['reading:1']],
    ['{ aborted: 1 }', { aborted: 1 }, ['pass']],
    ['{ aborted: "yes" }', { aborted: 'yes' }, ['pass']],
  ])('signal %s reads as JS reads it', async (_label, signal, expected) => {
    const out = await both((plugin) => outcome(plugin, { payload: { signal } }))
    expect(out.native).toEqual(out.js)
    expect(out.native.results).toEqual(expected)
  })

  it('a later step without an agent object passes the decision through, as the JS package does', async () => {
    for (const [name, plugin] of implementations) {
      let listener
      plugin.apply({ on: (_event, fn) => (listener = fn), get: () => undefined, logger: { warn() {}, debug() {} } }, {})
      const decision = { kind: 'enter', messages: [] }
      for (const agent of [undefined, null, 7]) {
        const step = listener({ turn: 2, step: 2, signal: new AbortController().signal, agent }, () => Promise.resolve(decision))
        await expect(step, `${name}, agent ${agent}`).resolves.toBe(decision)
      }
    }
  })

  it('a primitive downstream decision on a later step passes silently', async () => {
    const out = await both((plugin) => outcome(plugin, { payload: { step: 2 }, downstream: 7 }))
    expect(out.native).toEqual(out.js)
  })

  it('next() throwing synchronously rejects the listener’s promise, as an async listener does', async () => {
    for (const [, plugin] of implementations) {
      const { ctx } = await mount(plugin)
      let result
      try {
        result = agentEvents(ctx, agentOver({ events: [] })).waterfall(
          'agent/pre-step',
          { messages: [], turn: 1, step: 1, signal: new AbortController().signal },
          () => {
            throw new Error('downstream threw')
          },
        )
      } catch (error) {
        result = error
      }
      expect(result).toBeInstanceOf(Promise)
      await expect(result).rejects.toThrow('downstream threw')
    }
  })
})

describe('executors', () => {
  it('a run that is not a function warns with the JS package’s words', async () => {
    const out = {}
    for (const [name, plugin] of implementations) {
      const { ctx } = await mount(plugin, {}, { executor: 'none' })
      ctx.provide('shell', { resolve: (r) => r, run: 5 })
      const warn = vi.spyOn(ctx.logger, 'warn')
      const step = await preStep(ctx, agentOver({ events: [] }))
      out[name] = [isPassThrough(step), warn.mock.calls.map((c) => c[0])]
    }
    expect(out.native).toEqual(out.js)
    expect(out.native[1]).toEqual(['tmux location query failed: bash.run is not a function; injecting no location this turn'])
  })

  it('the largest queryTimeoutMs still reads, with nothing printed (no timer overflow)', async () => {
    const err = vi.spyOn(process.stderr, 'write')
    const warned = vi.fn()
    process.on('warning', warned)
    const { ctx } = await mount(native, { queryTimeoutMs: 2147483647 }, { respond: () => new Promise((r) => setTimeout(() => r(runResult(line())), 20)) })
    const { decision } = await preStep(ctx, agentOver({ events: [] }))
    await new Promise((r) => setTimeout(r, 20))
    process.off('warning', warned)
    expect(readings(decision)).toHaveLength(1)
    expect(warned).not.toHaveBeenCalled()
    expect(err).not.toHaveBeenCalled()
  })
})

/**
 * One pre-step at the Node-API edge with the given inputs, as the property below draws them: the
 * payload fields, what `next()` resolves to, what `run()` settles with, and whether it rejects.
 * Whatever they are, the listener never throws, warns at most once, and either hands back the
 * downstream decision itself (`Object.is`, so a `NaN` decision counts) or a reading in front of it.
 */
async function edgeCase({ ctx, record, warn }, payload, downstream, answer, rejects) {
  warn.mockClear()
  record.respond = () => (rejects ? Promise.reject(answer) : Promise.resolve(answer))
  const agent = agentOver({ events: [] })
  const decision = await agentEvents(ctx, agent).waterfall('agent/pre-step', { messages: [], ...payload }, () => Promise.resolve(downstream))
  expect(warn.mock.calls.length).toBeLessThanOrEqual(1)
  if (!Object.is(decision, downstream)) {
    expect(decision.kind).toBe('enter')
    expect(decision.messages[0].source.plugin).toBe('tmux-context')
  }
  return decision
}

async function edgeMount() {
  const { ctx, record } = await mount(native, { queryTimeoutMs: 50 })
  const warn = vi.spyOn(ctx.logger, 'warn').mockImplementation(() => {})
  return { ctx, record, warn }
}

describe('no input crashes it (property test at the Node-API edge)', () => {
  it('arbitrary payload fields, downstream decisions and executor results: never a throw, at most one warning', async () => {
    const fc = (await import('fast-check')).default
    const edge = await edgeMount()
    const result = fc.oneof(
      fc.anything(),
      fc.record({ exitCode: fc.oneof(fc.constant(0), fc.anything()), stdout: fc.oneof(fc.record({ text: fc.oneof(fc.string(), fc.anything()) }), fc.anything()) }),
    )
    // fast-check prints the seed and path of a failure; FC_SEED / FC_PATH replay it (__test__/setup.mjs).
    await fc.assert(
      fc.asyncProperty(
        fc.record({ turn: fc.anything(), step: fc.oneof(fc.constant(1), fc.anything()), signal: fc.oneof(fc.constant(new AbortController().signal), fc.anything()) }),
        fc.oneof(fc.constant({ kind: 'enter', messages: [] }), fc.record({ kind: fc.anything(), messages: fc.anything() }), fc.anything()),
        result,
        fc.boolean(),
        (payload, downstream, answer, rejects) => edgeCase(edge, payload, downstream, answer, rejects).then(() => {}),
      ),
      { numRuns: 500 },
    )
  })

  it.each([
    // Seed 1404583353, path "487:0:0:63": a NaN downstream decision is passed through as itself.
    ['NaN', Number.NaN],
    ['-0', -0],
  ])('regression: a %s downstream decision comes back as the same value', async (_label, downstream) => {
    const edge = await edgeMount()
    const payload = { turn: [], step: '', signal: new AbortController().signal }
    const decision = await edgeCase(edge, payload, downstream, 0, false)
    expect(decision).toBe(downstream)
    expect(edge.warn).not.toHaveBeenCalled()
  })
})

// Found by trying to break it (the second round): each one side by side with the JS package.
describe('promises, thenables and lengths as odd as JS allows', () => {
  /** One first-step pre-step whose next() returns what `downstream()` makes; 'HANG' if it never settles. */
  async function fire(plugin, downstream, options = {}) {
    const m = await mount(plugin, options.config ?? {}, options.respond ? { respond: options.respond } : {})
    const warn = vi.spyOn(m.ctx.logger, 'warn').mockImplementation(() => {})
    const turn = agentEvents(m.ctx, agentOver({ events: options.events ?? [] })).waterfall(
      'agent/pre-step',
      { messages: [], turn: 1, step: 1, signal: new AbortController().signal },
      downstream,
    )
    const outcome = await Promise.race([
      turn.then((d) => (Array.isArray(d?.messages) ? `reading:${readings(d).length}` : 'passed-through'), (e) => `failed:${e.message}`),
      new Promise((r) => setTimeout(r, 2500, 'HANG')),
    ])
    return { outcome, warnings: warn.mock.calls.map((c) => c[0]) }
  }
  const own = (value, then) => Object.defineProperty(Promise.resolve(value), 'then', then)
  const brokenThenable = () => Object.defineProperty({}, 'then', { get() { throw new Error('broken thenable') } })

  it('next() returns a promise with its own `then`: waited for as `await` does (the intrinsic then)', async () => {
    const out = await both((plugin) => fire(plugin, () => own({ kind: 'enter', messages: [] }, { value: () => {} })))
    expect(out.native).toEqual(out.js)
    expect(out.native.outcome).toBe('reading:1')
  })

  it('next() returns a promise whose `then` getter throws: read as `await` reads it', async () => {
    const out = await both((plugin) => fire(plugin, () => own({ kind: 'enter', messages: [] }, { get() { throw new Error('then getter') } })))
    expect(out.native).toEqual(out.js)
  })

  it('next() returns a thenable whose `then` getter throws: the turn fails with it, as in JS, and the process lives', async () => {
    const out = await both((plugin) => fire(plugin, brokenThenable))
    expect(out.native).toEqual(out.js)
    expect(out.native.outcome).toBe('failed:broken thenable')
  })

  it('run() returns a thenable whose `then` getter throws: the contract’s warning, no location', async () => {
    const out = await both((plugin) => fire(plugin, () => Promise.resolve({ kind: 'enter', messages: [] }), { respond: brokenThenable }))
    expect(out.native).toEqual(out.js)
    expect(out.native).toEqual({ outcome: 'reading:0', warnings: ['tmux location query failed: broken thenable; injecting no location this turn'] })
  })

  it('run() returns a promise with its own `then`: the result is read, not waited for until the bound', async () => {
    const respond = () => own(runResult(line()), { value: () => {} })
    const out = await both((plugin) => fire(plugin, () => Promise.resolve({ kind: 'enter', messages: [] }), { respond }))
    expect(out.native).toEqual(out.js)
    expect(out.native.outcome).toBe('reading:1')
  })

  it('downstream messages claiming 2**32 - 1 entries without an iterator: one warning at once (the JS package’s spread fails the turn), never an allocation of that size', async () => {
    const { outcome, warnings } = await fire(native, () => Promise.resolve({ kind: 'enter', messages: { length: 2 ** 32 - 1 } }))
    expect(outcome).toBe('passed-through')
    expect(warnings).toEqual(['tmux-context: pre-step failed: messages is not iterable; passing the step through unchanged'])
  })

  it('downstream messages in a Set, a generator or an array with its own iterator are spread as the JS package spreads them (from a break-in)', async () => {
    const m1 = { role: 'user', id: 'm1' }
    const m2 = { role: 'user', id: 'm2' }
    const ownIterator = Object.assign([m1, m2], { *[Symbol.iterator]() { yield m2 } })
    const shapes = { set: () => new Set([m1, m2]), generator: () => (function* () { yield m1 })(), ownIterator: () => ownIterator }
    for (const [shape, messages] of Object.entries(shapes)) {
      const out = {}
      for (const [name, plugin] of implementations) {
        const m = await mount(plugin)
        const turn = agentEvents(m.ctx, agentOver({ events: [] })).waterfall(
          'agent/pre-step',
          { messages: [], turn: 1, step: 1, signal: new AbortController().signal },
          () => Promise.resolve({ kind: 'enter', messages: messages() }),
        )
        out[name] = (await turn).messages.map((x) => x.source?.plugin ?? x.id)
      }
      expect(out.native, shape).toEqual(out.js)
      expect(out.native[0], shape).toBe('tmux-context')
    }
  })

  it('a log that is not iterable but claims a billion events fails at once, as the JS package’s spread does', async () => {
    const { outcome, warnings } = await fire(native, () => Promise.resolve({ kind: 'enter', messages: [] }), { events: { length: 1e9 } })
    expect(outcome).toBe('reading:0')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('is not iterable')
  })
})

describe('round 3: every log shape the JS package reads, and disposal', () => {
  const older = (state) => readingEvent(state, Date.now() - 60_000)
  const shapes = {
    'a Set': (events) => new Set(events),
    'a getter returning a generator': (events) => ({ get events() { return (function* () { yield* events })() } }),
    'a Map’s values()': (events) => new Map(events.map((e, i) => [i, e])).values(),
  }

  for (const [label, make] of Object.entries(shapes)) {
    it(`a log that is ${label} (iterable, no length) is spread as [...events]: the same as JS`, async () => {
      for (const state of [STATE, STATE.replace('editor', 'other')]) {
        const out = await both((plugin) => {
          const made = make([older(state)])
          const session = made.events !== undefined ? made : { events: made }
          return outcome(plugin, { payload: { agent: agentOver(session) } })
        })
        expect(out.native).toEqual(out.js)
        expect(out.native.warnings).toBe(0)
      }
    })
  }

  it('a log that is neither array-like nor iterable warns and passes (the JS package fails the turn)', async () => {
    const out = await outcome(native, { payload: { agent: agentOver({ events: { notAList: true } }) } })
    expect(out).toEqual({ results: ['pass'], warnings: 1 })
  })

  it('stdout.text as a String object is read as its string, as JS reads it', async () => {
    const out = await both((plugin) => outcome(plugin, { respond: () => Promise.resolve({ ...runResult(''), stdout: { text: new String(line() + '\n'), bytes: 1, truncated: false } }) }))
    expect(out.native).toEqual(out.js)
    expect(out.native).toEqual({ results: ['reading:1'], warnings: 0 })
  })

  it('a stored reading whose text is a String object suppresses, as in JS', async () => {
    const event = older(STATE)
    event.data.content[0].text = new String(event.data.content[0].text)
    const out = await both((plugin) => outcome(plugin, { payload: { agent: agentOver({ events: [event] }) } }))
    expect(out.native).toEqual(out.js)
    expect(out.native.results).toEqual(['pass'])
  })

  it('a stored reading whose seq getter throws reads as the JS package reads it (it never reads seq; from a break-in)', async () => {
    const event = older(STATE)
    Object.defineProperty(event, 'seq', { get() { throw new Error('seq boom') } })
    const out = await both((plugin) => outcome(plugin, { payload: { agent: agentOver({ events: [event] }) } }))
    expect(out.native).toEqual(out.js)
    expect(out.native).toEqual({ results: ['pass'], warnings: 0 })
  })

  it('a query whose executor rejects after its plugin was disposed still warns, with or without a GC (as JS; from a break-in)', async () => {
    const out = {}
    for (const [name, plugin] of implementations) {
      out[name] = []
      for (const collect of [false, true]) {
        let reject
        // Nothing of the test holds the context once it is disposed.
        let mounted = await mount(plugin, {}, { respond: () => new Promise((_, r) => (reject = r)) })
        const warn = vi.spyOn(Object.getPrototypeOf(mounted.ctx.logger), 'warn').mockImplementation(() => {})
        try {
          const step = preStep(mounted.ctx, agentOver({ events: [] }))
          await new Promise((r) => setTimeout(r, 10))
          await mounted.fiber.dispose()
          mounted = undefined
          if (collect) await gcWithTurns()
          reject(new Error('executor went away'))
          await step
          out[name].push(warn.mock.calls.filter((c) => String(c[0]).includes('executor went away')).length)
        } finally {
          warn.mockRestore()
        }
      }
    }
    expect(out.js).toEqual([1, 1])
    expect(out.native).toEqual(out.js)
  })

  it('a stored reading whose text is an object whose prototype cannot be read counts as no text: a reading, no warning', async () => {
    const event = older(STATE)
    event.data.content[0].text = new Proxy(new String(event.data.content[0].text), { getPrototypeOf() { throw new Error('no prototype') } })
    const out = await outcome(native, { payload: { agent: agentOver({ events: [event] }) } })
    expect(out).toEqual({ results: ['reading:1'], warnings: 0 })
  })

  it('a query in flight when its context is disposed ends with a reading, with or without a GC in between (as JS)', async () => {
    const out = {}
    for (const [name, plugin] of implementations) {
      out[name] = []
      for (const collect of [false, true]) {
        let answer
        const { ctx, fiber } = await mount(plugin, {}, { respond: () => new Promise((r) => (answer = r)) })
        const step = preStep(ctx, agentOver({ events: [] }))
        await new Promise((r) => setTimeout(r, 10))
        expect(answer, 'the query started').toBeTypeOf('function')
        await fiber.dispose()
        if (collect) await gcWithTurns()
        answer(runResult(line() + '\n'))
        out[name].push(readings((await step).decision).length)
      }
    }
    expect(out.js).toEqual([1, 1])
    expect(out.native).toEqual(out.js)
  })
})

describe('round 3: memory after disposal, side by side with JS', () => {
  /** A full GC and a few event-loop turns (for finalizers). */
  async function collected(turns = true) {
    await gcWithTurns(turns ? 3 : 0)
    return process.memoryUsage().heapUsed
  }

  it('steps whose next() never settles keep nothing of ours once their plugins are disposed (within 2× JS)', async () => {
    const grew = {}
    for (const [name, plugin] of implementations) {
      const before = await collected()
      for (let p = 0; p < 20; p++) {
        const { ctx, fiber } = await mount(plugin)
        const agent = agentOver({ events: [] })
        for (let i = 0; i < 5000; i++) {
          agentEvents(ctx, { ...agent, id: `a${p}` }).waterfall('agent/pre-step', { messages: [], turn: 1, step: 1, signal: new AbortController().signal }, () => new Promise(() => {}))
        }
        await fiber.dispose()
      }
      grew[name] = (await collected()) - before
    }
    expect(grew.native, JSON.stringify(grew)).toBeLessThan(2 * Math.max(grew.js, 0) + (1 << 19))
  }, 60_000)

  it('load/unload cycles with no event-loop turn stay within 2× JS (Cordis’s own retention of logged lines aside)', async () => {
    const { Context } = await import('@deepseek-ai/cordis')
    const AgentRegistry = (await import('@deepseek-ai/dsh-agent')).default
    const grew = {}
    for (const [name, plugin] of implementations) {
      const ctx = new Context()
      await ctx.plugin(AgentRegistry)
      // Cordis keeps every logged line, with its context, until the event loop turns; a JS plugin
      // that logs one debug line per apply retains the same. The load line is ours: not measured here.
      ctx.logger.debug = () => {}
      const before = await collected(false)
      for (let i = 0; i < 2000; i++) await (await ctx.plugin(plugin, {})).dispose()
      grew[name] = (await collected(false)) - before
    }
    expect(grew.native, JSON.stringify(grew)).toBeLessThan(2 * Math.max(grew.js, 0) + (1 << 20))
  }, 60_000)
})

/**
 * The first step of a plugin whose executor never answers (`queryTimeoutMs` 300), started under fake
 * timers, so that our bound's sweep timer is armed on the fake clock; real timers are back on return.
 * Returns `{ first }`, the step's promise (not the promise itself, which an async function would await).
 */
async function stuckUnderFakeTimers() {
  vi.useFakeTimers()
  const early = await mount(native, { queryTimeoutMs: 300 }, { respond: () => new Promise(() => {}) })
  const first = preStep(early.ctx, agentOver({ events: [] }))
  await vi.advanceTimersByTimeAsync(0)
  vi.useRealTimers()
  return { first }
}

describe('round 3, from a break-in: shared timers, disposal mid-step, config getters', () => {
  it('a short queryTimeoutMs is not held to another plugin’s longer bound (one sweep timer per environment)', async () => {
    const never = () => new Promise(() => {})
    const keep = setInterval(() => {}, 50)
    try {
      const slow = await mount(native, { queryTimeoutMs: 2500 }, { respond: never })
      const fast = await mount(native, { queryTimeoutMs: 50 }, { respond: never })
      const slowStep = preStep(slow.ctx, agentOver({ events: [] }))
      await new Promise((r) => setTimeout(r, 20))
      const fastStep = preStep(fast.ctx, agentOver({ events: [] }))
      // Its own bound (50 ms and our 1 s grace) ends it before the other plugin's (2.5 s and 1 s),
      // whatever the machine's speed: the two timers fire in the order of their deadlines.
      const first = await Promise.race([fastStep.then(() => 'fast'), slowStep.then(() => 'slow')])
      expect(first).toBe('fast')
      expect(isPassThrough(await fastStep)).toBe(true)
      await slowStep
    } finally {
      clearInterval(keep)
    }
  }, 15_000)

  it('a step whose next() settles after its plugin was disposed behaves the same with or without a GC (as JS)', async () => {
    const out = {}
    for (const [name, plugin] of implementations) {
      out[name] = []
      for (const collect of [false, true]) {
        const { ctx, fiber } = await mount(plugin)
        let release
        const base = { kind: 'enter', messages: [] }
        const step = agentEvents(ctx, agentOver({ events: [] })).waterfall(
          'agent/pre-step',
          { messages: [], turn: 1, step: 1, signal: new AbortController().signal },
          () => new Promise((r) => (release = () => r(base))),
        )
        await fiber.dispose()
        if (collect) await gcWithTurns()
        release()
        out[name].push(readings(await step).length)
      }
    }
    expect(out.js).toEqual([1, 1])
    expect(out.native).toEqual(out.js)
  })

  it('a query started while fake timers were installed is still cut off by its bound once they are gone (from a break-in)', async () => {
    const never = () => new Promise(() => {})
    const keep = setInterval(() => {}, 50)
    try {
      const a = await mount(native, { queryTimeoutMs: 100 }, { respond: () => Promise.resolve(runResult(line())) })
      expect(readings((await preStep(a.ctx, agentOver({ events: [] }))).decision)).toHaveLength(1)
      vi.useFakeTimers()
      const b = await mount(native, { queryTimeoutMs: 300 }, { respond: never })
      const stuck = preStep(b.ctx, agentOver({ events: [] }))
      await vi.advanceTimersByTimeAsync(0)
      vi.useRealTimers()
      // 300 ms and our 1 s grace on the real clock, whatever clock was installed when it started
      // (without it, this step would never end: nothing else answers).
      expect(isPassThrough(await stuck)).toBe(true)
    } finally {
      vi.useRealTimers()
      clearInterval(keep)
    }
  }, 15_000)

  it('after fake timers, our own bound still holds on real ones (a timer armed on the fake clock is taken as lost)', async () => {
    const keep = setInterval(() => {}, 50)
    try {
      const { first } = await stuckUnderFakeTimers()
      const late = await mount(native, { queryTimeoutMs: 1500 }, { respond: () => new Promise(() => {}) })
      // Neither step would ever end without our bound: nothing else answers.
      const out = await preStep(late.ctx, agentOver({ events: [] }))
      expect(isPassThrough(out)).toBe(true)
      expect(isPassThrough(await first)).toBe(true)
    } finally {
      vi.useRealTimers()
      clearInterval(keep)
    }
  }, 15_000)

  it('a bound whose timer was lost is armed again by the next query, even one that answers at once (from a break-in)', async () => {
    const keep = setInterval(() => {}, 50)
    try {
      const { first } = await stuckUnderFakeTimers()
      const instant = await mount(native)
      expect(readings((await preStep(instant.ctx, agentOver({ events: [] }))).decision)).toHaveLength(1)
      // 300 ms and our 1 s grace, from the first query's start; without the bound armed again, the
      // first step would never end (nothing else answers it).
      expect(isPassThrough(await first)).toBe(true)
    } finally {
      vi.useRealTimers()
      clearInterval(keep)
    }
  }, 15_000)

  it('under fake timers, vi.runAllTimers() ends (our sweep arms nothing on the fake clock), with the JS package’s reading', async () => {
    const out = {}
    for (const [name, plugin] of implementations) {
      vi.useFakeTimers()
      try {
        const { ctx } = await mount(plugin, {}, { respond: () => new Promise((r) => setTimeout(() => r(runResult(line() + '\n')), 100)) })
        const step = preStep(ctx, agentOver({ events: [] }))
        await vi.advanceTimersByTimeAsync(0)
        vi.runAllTimers()
        const { decision } = await step
        vi.runAllTimers()
        out[name] = { readings: readings(decision).length, timers: vi.getTimerCount() }
      } finally {
        vi.useRealTimers()
      }
    }
    expect(out.native).toEqual(out.js)
    expect(out.native).toEqual({ readings: 1, timers: 0 })
  })

  it('queries in flight together that time out together are one stall: one 60 s pause, not a longer one each', async () => {
    const keep = setInterval(() => {}, 50)
    try {
      const { ctx } = await mount(native, { queryTimeoutMs: 10 }, { respond: () => new Promise(() => {}) })
      const debug = vi.spyOn(ctx.logger, 'debug')
      const steps = Array.from({ length: 5 }, (_, i) => preStep(ctx, agentOver({ events: [], id: `agent-${i}` })))
      for (const step of steps) expect(isPassThrough(await step)).toBe(true)
      const said = debug.mock.calls.map((c) => c[0]).filter((m) => m.includes('did not answer'))
      expect(said).toEqual(['tmux-context: no location this turn: tmux did not answer within 10 ms; not asking again for 60 s'])
    } finally {
      clearInterval(keep)
    }
  }, 15_000)

  it('a config getter that throws throws what it throws; a value String() cannot convert too (as JS)', async () => {
    const cases = [
      { get refreshIntervalMs() { throw new TypeError('getter boom') } },
      { get refreshIntervalMs() { throw new RangeError('range boom') } },
      { get refreshIntervalMs() { throw 'plain string' } },
      { refreshIntervalMs: Object.create(null) },
    ]
    for (const config of cases) {
      const caught = {}
      for (const [name, plugin] of implementations) {
        try {
          plugin.apply({ on() {}, logger: { debug() {} } }, config)
          caught[name] = 'no error'
        } catch (error) {
          caught[name] = error instanceof Error ? `${error.constructor.name}: ${error.message}` : error
        }
      }
      expect(caught.native).toEqual(caught.js)
    }
    // queryTimeoutMs is ours (the JS package never reads it): its getter's error is thrown as it is.
    expect(() => native.apply({ on() {} }, { get queryTimeoutMs() { throw new RangeError('range boom') } })).toThrow(RangeError)
  })
})

describe('the unknown-key warning is bounded, whatever the config holds (issue 43)', () => {
  const WHERE = "(change it under config: of the tmux-context row in your profile's cordis.patch.yml, or cordis.yml)"
  /** The warnings `apply` gives for `config`. */
  function warnings(config) {
    const said = []
    native.apply({ on() {}, get: () => undefined, logger: { warn: (m) => said.push(m), debug() {} } }, config)
    return said
  }
  /** No control, format or line-separator character: nothing in the line can start another or colour a terminal. */
  const printable = (line) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(line)

  it('a normal slip keeps its shape: the key as typed, the nearest known key, the known keys, where to change it', () => {
    const [line] = warnings({ pane: true })
    expect(line).toMatch(/^tmux-context: unknown config key pane \(did you mean panes\?\) ignored; the known keys are [A-Za-z, ]*\bpanes\b/)
    expect(line.endsWith(WHERE)).toBe(true)
  })

  it('a 1 MiB key: one warning of at most 1,024 characters with its start quoted, how much was cut, and where to change it', () => {
    const key = 'x'.repeat(1 << 20)
    const said = warnings({ [key]: true })
    expect(said).toHaveLength(1)
    const [line] = said
    expect(line.length).toBeLessThanOrEqual(1024)
    expect(line).toContain(`unknown config key "${'x'.repeat(48)}" [cut: ${(1 << 20) - 48} more characters at the end] (did you mean `)
    expect(line.endsWith(WHERE)).toBe(true)
  })

  it('10,000 keys: one warning of at most 1,024 characters, the first keys named, how many were left out', () => {
    const config = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`pane${i}`, true]))
    const [line] = warnings(config)
    expect(line.length).toBeLessThanOrEqual(1024)
    expect(line).toMatch(/^tmux-context: unknown config keys pane0 \(did you mean panes\?\), pane1 \(did you mean panes\?\), /)
    const shown = line.match(/\(did you mean /g).length
    expect(line).toContain(` and ${10_000 - shown} more (10000 in all) ignored; the known keys are `)
    expect(shown).toBeGreaterThan(5)
    expect(line.endsWith(WHERE)).toBe(true)
  })

  it('10,000 keys of 1,000 characters each: only the keys shown are compared with the known ones', () => {
    const long = 'y'.repeat(1000)
    const config = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`${i}${long}`, true]))
    const [line] = warnings(config)
    expect(line.length).toBeLessThanOrEqual(1024)
    expect(line).toMatch(/ and \d+ more \(10000 in all\) ignored; /)
  })

  it('a key holding a newline and ESC[31m, C1 controls, separators or bidi overrides: quoted and escaped, never raw', () => {
    const keys = ['pane\n\u001b[31mred\u001b[0m', 'tab\there\r', 'csi\u009b31m', 'del\u007f', 'line\u2028para\u2029', 'bidi\u202egnp.exe', 'nul\u0000', 'quote"back\\slash', '', '  ']
    const [line] = warnings(Object.fromEntries(keys.map((k) => [k, true])))
    expect(printable(line), JSON.stringify(line)).toBe(true)
    expect(line.length).toBeLessThanOrEqual(1024)
    // The nearest known key (panes or paneTitles, by edit distance).
    expect(line).toMatch(/"pane\\n\\u001b\[31mred\\u001b\[0m" \(did you mean pane(s|Titles)\?\)/)
    expect(line).toContain('"csi\\u009b31m"')
    expect(line).toContain('"line\\u2028para\\u2029"')
    expect(line).toContain('"bidi\\u202egnp.exe"')
    expect(line).toContain('"quote\\"back\\\\slash"')
    expect(line).toContain(', "" (did you mean ')
    // A long key of escapes is cut by characters, its escapes whole; a cut never halves a surrogate pair.
    const [escapes] = warnings({ ['\u001b'.repeat(5000)]: true })
    expect(escapes).toContain(`"${'\\u001b'.repeat(48)}" [cut: ${5000 - 48} more characters at the end]`)
    const [pairs] = warnings({ [`${'a'.repeat(47)}😀${'b'.repeat(10)}`]: true })
    expect(pairs).toContain(`"${'a'.repeat(47)}" [cut: 12 more characters at the end]`)
  })
})
