// Differential: the same executor outputs through the native package and the JS reference
// (@deepseek-ai/dsh-tmux-context@0.1.0-rc.8) must give byte-identical readings, identical message
// JSON apart from `id`, and the same pass-through decisions, turn after turn.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { implementations, isPassThrough, makeAgent, mount, readings, runResult, turn, withoutId, SEP } from './harness.mjs'

// Field text: the hard characters, plus arbitrary well-formed Unicode (lone surrogates cannot come
// out of an executor, which decodes bytes; see README "Known limitations").
const hard = fc.constantFrom('"', "'", '\\', '\\t', '\t', '\n', '\r', '\u0000', '\u001b', '\u007f', '\u2028', '\u2029', 'é', '漢字', '😀', '%', '$', ' ', '', '{', '}')
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.array(hard, { maxLength: 8 }).map((a) => a.join('')),
  fc.string({ maxLength: 6 }),
)
const fields = fc.tuple(text, fc.nat(999).map(String), text, fc.nat(99).map(String), fc.oneof(fc.constant(''), fc.nat(999).map((n) => `%${n}`), text), fc.constantFrom('0', '1'), fc.constantFrom('0', '1'), text)

// An executor output: 8 fields (the usual), or a wrong count, with optional trailing lines.
const output = fc.oneof(
  { weight: 5, arbitrary: fields.map((f) => f.join(SEP)) },
  { weight: 2, arbitrary: fc.array(text, { maxLength: 11 }).map((f) => f.join(SEP)) },
  { weight: 1, arbitrary: text },
).chain((first) => fc.oneof(fc.constant(first), fc.constant(first + '\n'), text.map((rest) => `${first}\n${rest}`)))

const exitCode = fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(1, null, 127) })

/**
 * How the log and the executor's text reach the plugin: the Session as it is, or its events as an
 * iterable without `length` (a `Set`, a getter returning a generator), and `stdout.text` as a string
 * or a `String` object. The JS package reads each the same way.
 */
const logShape = fc.constantFrom('array', 'set', 'generator')
const textShape = fc.constantFrom('string', 'String object')

function viewOf(agent, shape) {
  if (shape === 'array') return agent
  const real = agent.session
  const events = shape === 'set' ? () => new Set(real.events) : () => (function* () { yield* real.events })()
  return { ...agent, session: { id: real.id, get events() { return events() }, append: (...a) => real.append(...a) } }
}

async function runBoth(steps, { log = 'array', text: stdoutText = 'string' } = {}) {
  const results = []
  for (const [, plugin] of implementations) {
    let i = 0
    const respond = () => {
      const result = runResult(steps[i].stdout, steps[i++].exitCode)
      if (stdoutText === 'String object') result.stdout = { ...result.stdout, text: new String(result.stdout.text) }
      return Promise.resolve(result)
    }
    const { ctx } = await mount(plugin, {}, { respond })
    const agent = viewOf(makeAgent(), log)
    const seen = []
    for (let t = 1; t <= steps.length; t++) {
      const out = await turn(ctx, agent, t)
      seen.push({ passedThrough: isPassThrough(out), readings: readings(out.decision).map(withoutId) })
    }
    results.push(seen)
  }
  return results
}

describe('native vs JS reference on random executor outputs', () => {
  it('single outputs: identical readings (or both none)', async () => {
    await fc.assert(
      fc.asyncProperty(output, exitCode, async (stdout, code) => {
        const [ours, theirs] = await runBoth([{ stdout, exitCode: code }])
        expect(ours).toEqual(theirs)
      }),
      { numRuns: 400 },
    )
  })

  it('sequences of turns: identical suppression and re-injection', async () => {
    // Steps drawn from a pool of three outputs, so unchanged locations recur and are suppressed.
    const sequence = fc
      .tuple(fc.array(fc.record({ stdout: output, exitCode }), { minLength: 3, maxLength: 3 }), fc.array(fc.nat(2), { minLength: 2, maxLength: 7 }))
      .map(([pool, picks]) => picks.map((i) => pool[i]))
    await fc.assert(
      fc.asyncProperty(sequence, logShape, textShape, async (steps, log, text) => {
        const [ours, theirs] = await runBoth(steps, { log, text })
        expect(ours).toEqual(theirs)
      }),
      { numRuns: 150 },
    )
  })

  it('named hard cases read byte-identically', async () => {
    const cases = [
      ['s"q', '1', 'w "quoted" \\ back', '0', '%1', '1', '0', 'a,1x1,0,0,1'],
      ['セッション', '12', '窓 😀', '3', '%42', '0', '1', 'c0de,200x50,0,0{100x50,0,0,1,99x50,101,0,2}'],
      ['ctl\u0001\u001f', '0', 'line\u2028sep\u2029', '0', '%0', '1', '1', ''],
      ['', '', '', '', '%9', '', '', ''],
    ]
    const [ours, theirs] = await runBoth(cases.map((f) => ({ stdout: f.join(SEP) + '\n', exitCode: 0 })))
    expect(ours).toEqual(theirs)
    expect(ours.filter((s) => s.readings.length === 1)).toHaveLength(4)
    expect(ours[0].readings[0].content[0].text).toBe(
      'tmux location (turn 1):\nsession s"q, window 1 "w \\"quoted\\" \\\\ back", pane 0 %1\nwindow active=1, pane active=0, layout a,1x1,0,0,1',
    )
  })

  it('megabyte outputs read the same, in linear time, ours with each name cut to 200 characters', async () => {
    const big = 'x'.repeat(1 << 20)
    const steps = [
      { stdout: [big, '1', big, '0', '%1', '1', '1', 'l'].join(SEP) + '\n', exitCode: 0 },
      { stdout: SEP.repeat(1 << 19), exitCode: 0 },
      { stdout: '\\'.repeat(1 << 20) + '\n' + 'dsh-tmux-context:q1' + SEP.repeat(1 << 18), exitCode: 0 },
    ]
    const [ours, theirs] = await runBoth(steps)
    expect(ours.map((r) => r.readings.length)).toEqual(theirs.map((r) => r.readings.length))
    expect(ours[0].readings).toHaveLength(1)
    const text = (r) => r.readings[0].content[0].text
    // 200 characters as the model reads them: the quotes, 156 kept, and the marker of 42.
    const cut = `"${'x'.repeat(156)}" [cut: ${(1 << 20) - 156} more characters at the end]`
    expect(cut).toHaveLength(200)
    expect(text(ours[0])).toBe(text(theirs[0]).replace(`session ${big}, window 1 "${big}"`, `session ${cut}, window 1 ${cut}`))
  })
})
