// "A reading only when the agent's place changes" at the Node-API edge, with scripted executor
// outputs shaped as our command prints them (real tmux runs are in real-tmux-place.test.mjs):
// grouped and linked windows named by their lowest session id, size-only layout changes and
// automatic-rename names ignored, a stuck tmux backed off, and why there is no reading told at
// debug level once per change of reason. Side by side with the JS package where it reads the same
// output the same way (the JS package's own output shape).
import { afterEach, describe, expect, it, vi } from 'vitest'
import { implementations, isPassThrough, line, makeAgent, mount, native, preStep, readings, runResult, turn } from './harness.mjs'

afterEach(() => vi.restoreAllMocks())

const SEP = '\\t'
/** What tmux's `q:` does to a name (format_quote_shell). */
const q = (s) => s.replace(/[|&;<>()$`\\"'*?[# =%]/g, (c) => `\\${c}`)
const FIELDS = { session: 'main', windowIndex: '1', windowName: 'editor', paneIndex: '0', paneId: '%3', windowActive: '1', paneActive: '1', layout: 'b25f,80x24,0,0,3' }

/** Our command's record for these fields, with `automatic-rename` on or off. */
function record(fields = {}, automaticRename = false) {
  const f = { ...FIELDS, ...fields }
  const escaped = [q(f.session), f.windowIndex, q(f.windowName), f.paneIndex, q(f.paneId), f.windowActive, f.paneActive, f.layout]
  return `dsh-tmux-context:q2${SEP}${escaped.join(SEP)}${SEP}${automaticRename ? 1 : 0}\n`
}
const winlink = (id, index, active, name) => `dsh-tmux-context:wl${SEP}$${id}${SEP}${index}${SEP}${active}${SEP}${q(name)}${SEP}$${id}\n`

/** Mount native with an executor answering each turn from `script` (a function of the turn). */
async function scripted(script, config = {}) {
  let n = 0
  const m = await mount(native, config, { respond: () => Promise.resolve(script(++n)) })
  const debug = vi.spyOn(m.ctx.logger, 'debug').mockImplementation(() => {})
  const agent = makeAgent()
  const turns = async (count) => {
    const out = []
    for (let t = 1; t <= count; t++) out.push(readings((await turn(m.ctx, agent, t)).decision).map((r) => r.content[0].text))
    return out
  }
  return { ...m, debug, agent, turns }
}

describe('the same place gives no new reading', () => {
  it('a grouped session: whichever session a client used last, the reading names the lowest session id', async () => {
    // display-message names the most recently used session of the group; the winlinks do not move.
    const views = [
      record({ session: 'view', windowActive: '1' }) + winlink(1, '1', '1', 'view') + winlink(0, '1', '0', 'main'),
      record({ session: 'main', windowActive: '0' }) + winlink(1, '1', '1', 'view') + winlink(0, '1', '0', 'main'),
    ]
    const { turns } = await scripted((n) => runResult(views[n % 2]))
    const seen = await turns(4)
    expect(seen[0]).toEqual(['tmux location (turn 1):\nsession main, window 1 "editor", pane 0 %3\nwindow active=0, pane active=1, layout b25f,80x24,0,0,3'])
    expect(seen.slice(1)).toEqual([[], [], []])
  })

  it('a linked window: the index and active flag of its own (lowest id) session', async () => {
    const out = record({ session: 'other', windowIndex: '5' }) + winlink(2, '5', '1', 'other') + winlink(0, '1', '0', 'main')
    const { turns } = await scripted(() => runResult(out))
    const [first] = await turns(1)
    expect(first[0]).toContain('session main, window 1 "editor"')
    expect(first[0]).toContain('window active=0')
  })

  it('a layout that only changed sizes (window-size latest, a resize) gives no reading; a new split does', async () => {
    const layouts = ['9c63,160x49,0,0{80x49,0,0,3,79x49,81,0,4}', 'fc2d,100x29,0,0{50x29,0,0,3,49x29,51,0,4}', '9c63,160x49,0,0{80x49,0,0,3,79x49,81,0,4}', 'abcd,160x49,0,0{80x49,0,0,3,39x49,81,0,4,39x49,121,0,5}']
    const { turns } = await scripted((n) => runResult(record({ layout: layouts[n - 1] })))
    expect((await turns(4)).map((r) => r.length)).toEqual([1, 0, 0, 1])
  })

  it('a window named by automatic-rename gives no reading when the name changes; a manual rename does', async () => {
    const answers = [record({ windowName: 'sh' }, true), record({ windowName: 'top' }, true), record({ windowName: 'vim' }, true), record({ windowName: 'work' }, false)]
    const { turns } = await scripted((n) => runResult(answers[n - 1]))
    const seen = await turns(4)
    expect(seen.map((r) => r.length)).toEqual([1, 0, 0, 1])
    expect(seen[3][0]).toContain('"work"')
  })

  it('where none of this applies, readings are exactly the JS package’s, turn by turn', async () => {
    // The JS package's output shape (an executor written for it) and our own record carry the same
    // fields: both packages read the same turns the same way, byte for byte.
    const script = [line(), line(), line({ windowName: 'b' }), line({ layout: 'x,1x1,0,0,1' }), line({ paneId: '' }), line()]
    const outputs = {}
    for (const [name, plugin] of implementations) {
      let i = 0
      const { ctx } = await mount(plugin, {}, { respond: () => Promise.resolve(runResult(script[i++])) })
      const agent = makeAgent()
      const seen = []
      for (let t = 1; t <= script.length; t++) seen.push(readings((await turn(ctx, agent, t)).decision).map((r) => r.content[0].text))
      outputs[name] = seen
    }
    expect(outputs.native).toEqual(outputs.js)
  })
})

describe('a stuck tmux costs one turn', () => {
  it('after a time-out the turns within the backoff pass through at once, without a query; the reason is told once', async () => {
    const timedOut = { ...runResult(''), exitCode: null, signal: 'SIGKILL', timedOut: true }
    const m = await scripted(() => timedOut, { queryTimeoutMs: 250 })
    const first = await preStep(m.ctx, m.agent)
    expect(isPassThrough(first)).toBe(true)
    for (let i = 0; i < 3; i++) expect(isPassThrough(await preStep(m.ctx, m.agent))).toBe(true)
    expect(m.record.ran).toHaveLength(1)
    expect(m.debug.mock.calls.map((c) => c[0])).toEqual(['tmux-context: no location this turn: tmux did not answer within 250 ms; not asking again for 60 s'])
  })
})

describe('why there is no reading, at debug level, once per change of reason', () => {
  const exit = (code, stderr = '') => ({ ...runResult(''), exitCode: code, stderr: { text: stderr, bytes: stderr.length, truncated: false } })

  it.each([
    ['not in tmux', exit(10), 'not in tmux: $TMUX_PANE is not set'],
    ['no controlling tty (setsid)', exit(11), 'has no controlling terminal'],
    ['the tty is not the pane’s', exit(12), 'nested in the pane'],
    ['tmux refused access', exit(14, 'access not allowed\n'), 'tmux server-access -a <user>'],
    ['tmux cannot connect (the sandbox hides the socket)', exit(13, 'error connecting to /tmp/tmux-1000/default (No such file or directory)\n'), 'the sandbox hides the tmux socket'],
    ['tmux missing', exit(127), 'tmux is not on the executor’s PATH'.replace('’', "'")],
    ['unreadable output', runResult('garbage'), 'could not be read as a location'],
    ['$TMUX_PANE set but empty', exit(15), '$TMUX_PANE is set but empty'],
    ['$TMUX_PANE not a pane id', exit(16), '$TMUX_PANE is not a pane id'],
    ['$TMUX naming another server', exit(17), '$TMUX names another server than the one this process runs in'],
    ['a $TMUX_PANE inherited from another pane', exit(18), 'another pane of this tmux server'],
    // An executor keeps the tail of a long stdout (rc.8's bash-local): a reading line there is not tmux's answer.
    ['an answer the executor cut', { ...runResult(line({ session: 'forged' })), stdout: { text: line({ session: 'forged' }), bytes: 1 << 20, truncated: true } }, 'longer than the executor keeps'],
  ])('%s', async (_label, result, words) => {
    const m = await scripted(() => result)
    for (let i = 0; i < 3; i++) expect(isPassThrough(await preStep(m.ctx, m.agent))).toBe(true)
    expect(m.debug).toHaveBeenCalledTimes(1)
    expect(m.debug.mock.calls[0][0]).toMatch(/^tmux-context: no location this turn: /)
    expect(m.debug.mock.calls[0][0]).toContain(words)
  })

  it.each([
    ['a result that is not an object', 42, 'the executor\'s result lacks an object (got number)'],
    ['an exitCode that is a string', { ...runResult(line()), exitCode: '0' }, 'the executor\'s result lacks a numeric exitCode (got string)'],
    ['a result killed by a signal', { ...runResult(''), exitCode: null }, 'the query ended with no status (killed by a signal)'],
    ['an exitCode of NaN', { ...runResult(line()), exitCode: NaN }, 'the executor\'s result lacks an integral exitCode (got NaN)'],
    ['an exitCode of 0.5', { ...runResult(line()), exitCode: 0.5 }, 'the executor\'s result lacks an integral exitCode (got 0.5)'],
    ['an exitCode of 1e300', { ...runResult(line()), exitCode: 1e300 }, 'the executor\'s result lacks an integral exitCode (got 1e300)'],
  ])('%s is told as what the result lacks (from a break-in)', async (_label, result, words) => {
    const m = await scripted(() => result)
    expect(isPassThrough(await preStep(m.ctx, m.agent))).toBe(true)
    expect(m.debug.mock.calls.map((c) => c[0])).toEqual([`tmux-context: no location this turn: ${words}`])
  })

  it('no executor mounted', async () => {
    const { ctx } = await mount(native, {}, { executor: 'none' })
    const debug = vi.spyOn(ctx.logger, 'debug').mockImplementation(() => {})
    await preStep(ctx, makeAgent())
    await preStep(ctx, makeAgent())
    expect(debug.mock.calls.map((c) => c[0])).toEqual(['tmux-context: no location this turn: no executor: neither ctx.shell nor ctx.bash is mounted'])
  })

  it('a new reason, or the same one after a reading, is told again; nothing at warn level', async () => {
    const answers = [exit(10), exit(10), runResult(line()), exit(10), exit(12), exit(12)]
    const m = await scripted((n) => answers[n - 1])
    const warn = vi.spyOn(m.ctx.logger, 'warn')
    await m.turns(answers.length)
    expect(m.debug.mock.calls.map((c) => c[0].split(': ')[2])).toEqual(['not in tmux', 'not in tmux', "this process runs in a terminal nested in the pane (script, an editor's terminal) that is in the pane's background, not its foreground"])
    expect(warn).not.toHaveBeenCalled()
  })
})

describe('the debug line at load', () => {
  const expected = async () => {
    const { version } = await import('../package.json', { with: { type: 'json' } }).then((m) => m.default)
    return new RegExp(`^tmux-context: native build ${version.replaceAll('.', '\\.')} \\(linux-x64-gnu\\) loaded from /`)
  }

  it('names the native build, its version, its platform and where its binary is, to an exporter that takes debug lines', async () => {
    const { Context, Logger } = await import('@deepseek-ai/cordis')
    const ctx = new Context()
    const lines = []
    const exporter = { colors: 0, levels: { default: 3 }, export: (m) => lines.push([m.type, Logger.format(exporter, m)]) }
    ctx.logger.exporter(exporter)
    native.apply(ctx, {})
    expect(lines).toHaveLength(1)
    expect(lines[0][0]).toBe('debug')
    expect(lines[0][1]).toMatch(await expected())
  })

  it('reaches an exporter through a name-specific level, or the logger level the context intercepts', async () => {
    const { Context } = await import('@deepseek-ai/cordis')
    for (const setup of [
      (ctx) => (ctx.logger.exporter({ levels: { 'tmux-context': 3 }, export() {} }), ctx),
      (ctx) => ctx.intercept('logger', { level: 3 }),
      // Levels Cordis reads through a prototype, or that are not enumerable (from a break-in).
      (ctx) => (ctx.logger.exporter({ levels: Object.create({ default: 3 }), export() {} }), ctx),
      (ctx) => (ctx.logger.exporter({ levels: Object.defineProperty({}, 'default', { value: 3 }), export() {} }), ctx),
    ]) {
      const ctx = setup(new Context())
      const debug = vi.spyOn(ctx.logger, 'debug')
      native.apply(ctx, {})
      expect(debug).toHaveBeenCalledTimes(1)
      expect(debug.mock.calls[0][0]).toMatch(await expected())
    }
  })

  it('goes to the logger once at apply; a logger that throws costs the line, not the load', async () => {
    const lines = []
    native.apply({ on() {}, logger: { debug: (line) => lines.push(line) } }, {})
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(await expected())
    // A logger that throws costs the line, not the load.
    const on = vi.fn()
    expect(native.apply({ on, logger: { debug() { throw new Error('no') } } }, {})).toBeUndefined()
    expect(on).toHaveBeenCalledTimes(1)
  })
})
