// The walk over a session's log (index.js hands it to the native build): whatever path it takes
// (a reversed copy for logs up to 16 384 events, an indexed walk beyond and for short ranges, the
// events appended since the last turn), the plugin finds the same newest reading as the JS package,
// so both leave the same steps alone and give the same ones a reading.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { implementations, line, mount, native as nativePlugin, preStep, runResult } from './harness.mjs'

const HERE = line()
const ELSEWHERE = line({ session: 'other' })

/** Each implementation mounted, answering `HERE`, and the reading it gives (as a message) for a place. */
async function setUp() {
  const out = []
  for (const [name, plugin] of implementations) {
    const { ctx } = await mount(plugin, {}, { respond: () => Promise.resolve(runResult(HERE + '\n')) })
    const { ctx: other } = await mount(plugin, {}, { respond: () => Promise.resolve(runResult(ELSEWHERE + '\n')) })
    const readingOf = async (c) => (await preStep(c, { session: { events: [] } })).decision.messages[0]
    out.push({ name, ctx, here: await readingOf(ctx), elsewhere: await readingOf(other) })
  }
  return out
}

/** An event of the log: a reading of either place, a look-alike the walk must pass over, or noise. */
const eventOf = (kind, { here, elsewhere }) =>
  ({
    here: { type: 'user/message', data: here },
    elsewhere: { type: 'user/message', data: elsewhere },
    // The right source, but no text block: a reading that shows no place.
    textless: { type: 'user/message', data: { ...here, content: [{ type: 'image', image: 'x' }] } },
    otherPlugin: { type: 'user/message', data: { ...here, source: { kind: 'plugin', plugin: 'other' } } },
    notMessage: { type: 'assistant/message', data: here },
    noData: { type: 'user/message', data: 'text' },
    noSource: { type: 'user/message', data: { content: [] } },
    nullSource: { type: 'user/message', data: { source: null } },
    primitive: 7,
    none: null,
  })[kind]

// (`none`, `noData`, `noSource` and `nullSource` only for ours: the JS package's step throws reading
// a null event's `type`, the `source` of a message whose data is a string, or a missing source's `kind`.)
const KINDS = ['here', 'elsewhere', 'textless', 'otherPlugin', 'notMessage', 'primitive']

/** A log of `length` events, `placed` ones set where they say. */
function logOf(length, placed, impl) {
  const events = Array.from({ length }, (_, i) => ({ type: 'turn/start', data: { turn: i } }))
  for (const [at, kind] of placed) if (length > 0) events[at % length] = eventOf(kind, impl)
  return events
}

/** Whether a pre-step on `agent` was left alone (the newest reading shows `HERE`). */
async function leftAlone(impl, agent, turn) {
  const { decision, base } = await preStep(impl.ctx, agent, { turn })
  return Object.is(decision, base)
}

describe('the walk over the log', () => {
  it('finds the newest reading as the JS package does, on both sides of the copy limit, first seen and appended to', async () => {
    const impls = await setUp()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 1, 5, 64, 65, 1000, 16_384, 16_385, 20_000),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...KINDS)), { maxLength: 12 }),
        fc.nat(),
        async (length, placed, cut) => {
          const seen = []
          for (const impl of impls) {
            const events = logOf(length, placed, impl)
            // Turn 1 reads the log up to `from` on first sight; turn 2 the events appended since.
            const from = length === 0 ? 0 : cut % (length + 1)
            // Readings of the two places on either side of the cut, where an off-by-one would take
            // the wrong one.
            if (from > 0 && from < length) [events[from - 1], events[from]] = [eventOf('here', impl), eventOf('elsewhere', impl)]
            const session = { events: events.slice(0, from) }
            const agent = { session }
            const first = await leftAlone(impl, agent, 1)
            session.events.push(...events.slice(from))
            seen.push([first, await leftAlone(impl, agent, 2)])
          }
          expect(seen[0]).toEqual(seen[1])
        },
      ),
      { numRuns: 150 },
    )
  }, 60_000)

  it('walks an array with an iterator of its own by index, on both paths (from a break-in)', async () => {
    const [native] = await setUp()
    for (const length of [61, 71, 2000]) {
      const events = logOf(length, [[length - 1, 'here'], [0, 'elsewhere']], native)
      events[Symbol.iterator] = function* () {
        yield* Array.prototype.slice.call(this).reverse()
      }
      expect(await leftAlone(native, { session: { events } }, 1)).toBe(true)
    }
  })

  it('takes a reading in the 0.1.7+ shape (source { kind: "tmux-context" }) as a reading, on both paths', async () => {
    const [native] = await setUp()
    for (const length of [3, 100, 20_000]) {
      const events = logOf(length, [[0, 'elsewhere']], native)
      events[length - 1] = { type: 'user/message', data: { ...native.here, source: { kind: 'tmux-context' } } }
      expect(await leftAlone(native, { session: { events } }, 1)).toBe(true)
    }
  })

  it('gives a log with look-alikes only a reading, as the JS package does, on both paths', async () => {
    for (const impl of await setUp()) {
      for (const length of [100, 20_000]) {
        const placed = [[0, 'otherPlugin'], [length - 1, 'notMessage']]
        expect(await leftAlone(impl, { session: { events: logOf(length, placed, impl) } }, 1)).toBe(false)
      }
    }
  })

  it('passes over a null event, a message whose data is not an object or that has no source, to the reading before them', async () => {
    const [native] = await setUp()
    for (const length of [6, 100, 20_000]) {
      const placed = [[length - 6, 'here'], [length - 5, 'noData'], [length - 4, 'noSource'], [length - 3, 'nullSource'], [length - 2, 'primitive'], [length - 1, 'none']]
      expect(await leftAlone(native, { session: { events: logOf(length, placed, native) } }, 1)).toBe(true)
    }
  })

  it('a getter that throws on the newest event is read once, and what it throws is the step’s warning, on both paths', async () => {
    const [native] = await setUp()
    for (const length of [100, 20_000]) {
      let calls = 0
      const events = logOf(length, [[0, 'here']], native)
      events[length - 1] = { type: 'user/message', get data() { calls += 1; throw new Error('data is gone') } }
      const { ctx } = await mount(nativePlugin, {}, { respond: () => Promise.resolve(runResult(HERE + '\n')) })
      const warnings = []
      ctx.logger.warn = (message) => warnings.push(message)
      const { decision, base } = await preStep(ctx, { session: { events } }, { turn: 1 })
      expect(Object.is(decision, base)).toBe(true)
      expect(calls).toBe(1)
      expect(warnings).toEqual(['tmux-context: pre-step failed: data is gone; passing the step through unchanged'])
    }
  })

  it('reads more than 64 events appended with no reading among them, keeping the one before, as the JS package does', async () => {
    for (const impl of await setUp()) {
      const session = { events: logOf(1000, [[3, 'here']], impl) }
      expect(await leftAlone(impl, { session }, 1)).toBe(true)
      session.events.push(...logOf(100, [[50, 'otherPlugin']], impl))
      expect(await leftAlone(impl, { session }, 2)).toBe(true)
      session.events.push(...logOf(100, [[50, 'elsewhere']], impl))
      expect(await leftAlone(impl, { session }, 3)).toBe(false)
    }
  })

  it('reads an iterable log without length as [...events], and fails on what is not iterable, as the JS package does', async () => {
    const impls = await setUp()
    for (const impl of impls) {
      expect(await leftAlone(impl, { session: { events: new Set(logOf(3, [[2, 'here']], impl)) } }, 1)).toBe(true)
      expect(await leftAlone(impl, { session: { events: new Set(logOf(3, [[2, 'elsewhere']], impl)) } }, 1)).toBe(false)
      // A string is iterable: its characters are events, none of them a reading.
      expect(await leftAlone(impl, { session: { events: 'abc' } }, 1)).toBe(false)
      expect(await leftAlone(impl, { session: { events: '' } }, 1)).toBe(false)
      // The iterator is read once, as `[...events]` reads it (a getter that gives it only once).
      const once = logOf(3, [[2, 'here']], impl)
      let reads = 0
      const log = { get [Symbol.iterator]() { return reads++ === 0 ? () => once[Symbol.iterator]() : undefined } }
      expect(await leftAlone(impl, { session: { events: log } }, 1)).toBe(true)
      // `[...{}]` throws: the JS package's step fails there; ours passes through with a warning.
      const failed = await preStep(impl.ctx, { session: { events: {} } }).then(
        (out) => Object.is(out.decision, out.base),
        (error) => error instanceof TypeError,
      )
      expect(failed).toBe(true)
    }
  })
})
