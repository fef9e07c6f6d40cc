// scan.js, the walk the native build hands its log reads to: whatever path it takes (a reversed
// copy for logs up to 16 384 events, an indexed walk beyond, and for short ranges), it finds the
// same newest candidate as a plain newest-first loop.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { newestCandidate, spread } from '../scan.js'

const PLUGIN = 'tmux-context'
const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function'
/** The definition, as plainly as it can be written. */
function reference(events, from, to) {
  for (let i = to - 1; i >= from; i--) {
    const e = events[i]
    if (!isObject(e) || e.type !== 'user/message' || !isObject(e.data)) continue
    const s = e.data.source
    if (isObject(s) && ((s.kind === 'plugin' && s.plugin === PLUGIN) || s.kind === PLUGIN)) return i
  }
  return -1
}

const candidate = fc.oneof(
  fc.constant({ type: 'user/message', data: { source: { kind: 'plugin', plugin: PLUGIN } } }),
  fc.constant({ type: 'user/message', data: { source: { kind: PLUGIN } } }),
  fc.constant({ type: 'user/message', data: { source: { kind: 'plugin', plugin: 'other' } } }),
  fc.constant({ type: 'user/message', data: { source: null } }),
  fc.constant({ type: 'user/message', data: 'text' }),
  fc.constant({ type: 'assistant/message', data: { source: { kind: PLUGIN } } }),
  fc.constant(null),
  fc.constant(7),
)

describe('scan.js', () => {
  it('finds the newest candidate in from..to as a plain loop does, on both sides of the copy limit', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 5, 64, 65, 1000, 16_384, 16_385, 20_000),
        fc.array(fc.tuple(fc.nat(), candidate), { maxLength: 12 }),
        fc.nat(),
        fc.nat(),
        (length, placed, a, b) => {
          const events = Array.from({ length }, (_, i) => ({ type: 'turn/start', data: { turn: i } }))
          for (const [at, value] of placed) if (length > 0) events[at % length] = value
          const [from, to] = length === 0 ? [0, 0] : [a % (length + 1), b % (length + 1)].sort((x, y) => x - y)
          // Candidates just outside the range, where an off-by-one would find them.
          const own = { type: 'user/message', data: { source: { kind: PLUGIN } } }
          if (to < length) events[to] = own
          if (from > 0) events[from - 1] = own
          Object.freeze(events)
          expect(newestCandidate(events, from, to, PLUGIN)).toBe(reference(events, from, to))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('an array with an iterator of its own is walked by index on both paths (from a break-in)', () => {
    for (const length of [61, 71, 2000]) {
      const events = Array.from({ length }, () => ({ type: 'turn/start', data: {} }))
      events[length - 1] = { type: 'user/message', data: { source: { kind: PLUGIN } } }
      events[Symbol.iterator] = function* () {
        yield* Array.prototype.slice.call(this).reverse()
      }
      expect(newestCandidate(events, 0, length, PLUGIN)).toBe(length - 1)
    }
  })

  it('spreads an iterable without length, and fails on what is not iterable, as [...events] does', () => {
    expect(spread(new Set([1, 2]))).toEqual([1, 2])
    expect(() => spread({})).toThrow(new TypeError('agent.session.events is not iterable'))
    expect(newestCandidate(new Set([{ type: 'user/message', data: { source: { kind: PLUGIN } } }]), 0, 1, PLUGIN)).toBe(0)
  })
})
