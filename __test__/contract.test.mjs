// The drop-in contract (shared/CONTRACT.md), run against the native package and the JS reference
// side by side in real Cordis contexts: what one does, the other must do too.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import InvariantRegistry from '@deepseek-ai/dsh-invariants'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import {
  commit,
  implementations,
  isDeepFrozen,
  line,
  makeAgent,
  mount,
  native,
  preStep,
  readings,
  reference,
  runResult,
  turn,
  withoutId,
} from './harness.mjs'
import { checkBuild } from './build.mjs'
import { hostPlatform } from '../scripts/targets.mjs'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('module surface', () => {
  it('exports the same name, inject and apply shape as the JS package', () => {
    expect(native.name).toBe('tmux-context')
    expect(native.name).toBe(reference.name)
    expect(native.inject).toEqual(['agents'])
    expect(native.inject).toEqual(reference.inject)
    expect(typeof native.apply).toBe('function')
  })

  it('index.d.ts declares apply(ctx, config); the binding index.js loads has apply, plan and read, nothing else', () => {
    const declared = (file) =>
      Object.fromEntries(
        [...readFileSync(new URL(`../${file}`, import.meta.url), 'utf8').matchAll(/export declare function (\w+)\(([^)]*)\): ([^;\n]+)/g)].map(([, f, params, returns]) => [
          f,
          { params: params.split(',').map((p) => p.split(':')[0].trim()), returns: returns.trim() },
        ]),
      )
    const generated = declared('binding.d.ts')
    // The binding takes plain values: the checked config at apply, the step's facts, the query's outcome.
    expect(Object.keys(generated).sort()).toEqual(['apply', 'plan', 'read'])
    expect(generated.plan.params).toEqual(['plugin', 'first', 'now', 'state', 'time', 'shadowed', 'replaced'])
    expect(generated.read.params).toEqual(['plugin', 'turn', 'compare', 'end', 'exitCode', 'stdout', 'detail'])
    expect(declared('index.d.ts').apply).toEqual({ params: ['ctx', 'config'], returns: 'void' })
  })

  it('apply on a context that is not an object throws, as the JS package’s does', () => {
    for (const [, plugin] of implementations) expect(() => plugin.apply(null, {})).toThrow()
    // A null config throws what the JS package's `config.refreshIntervalMs` throws.
    const thrown = (plugin) => {
      try {
        plugin.apply({ on() {} }, null)
      } catch (error) {
        return `${error.constructor.name}: ${error.message}`
      }
    }
    expect(thrown(native)).toBe(thrown(reference))
    expect(thrown(native)).toMatch(/^TypeError: /)
  })

  it('reads the log the same under node --disallow-code-generation-from-strings (the walk is a function of index.js)', () => {
    const probe = fileURLToPath(new URL('./fixtures/no-codegen-probe.mjs', import.meta.url))
    const run = (flags) => JSON.parse(execFileSync(process.execPath, [...flags, probe], { encoding: 'utf8', env: process.env }))
    const forbidden = run(['--disallow-code-generation-from-strings'])
    expect(forbidden).toEqual(run([]))
    expect(forbidden.map((r) => r.length)).toEqual([1, 0, 1, 0])
    expect(() => execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '-e', 'new Function("")'], { stdio: 'ignore' })).toThrow()
  })

  it('Config validates like the JS schema and adds queryTimeoutMs', () => {
    expect(native.Config({ refreshIntervalMs: 5 })).toEqual(reference.Config({ refreshIntervalMs: 5 }))
    expect(native.Config({})).toEqual(reference.Config({}))
    expect(() => native.Config({ refreshIntervalMs: 'x' })).toThrow()
    expect(() => reference.Config({ refreshIntervalMs: 'x' })).toThrow()
    expect(native.Config({ queryTimeoutMs: 250 })).toEqual({ queryTimeoutMs: 250 })
  })

  it('apply is synchronous, registers one prepended listener and returns undefined', () => {
    for (const [, plugin] of implementations) {
      const on = vi.fn()
      expect(plugin.apply({ on }, {})).toBeUndefined()
      expect(on).toHaveBeenCalledTimes(1)
      expect(on.mock.calls[0][0]).toBe('agent/pre-step')
      expect(typeof on.mock.calls[0][1]).toBe('function')
      expect(on.mock.calls[0][2]).toEqual({ prepend: true })
    }
  })

  it('the ./invariant subpath registers the package with the real invariant service', async () => {
    const invariant = await import('@deepseek-ai/dsh-tmux-context/invariant')
    const referenceInvariant = await import('dsh-tmux-context-js/invariant')
    expect(invariant.name).toBe('tmux-context-invariant')
    expect(invariant.name).toBe(referenceInvariant.name)
    expect(invariant.inject).toEqual(['invariants'])
    const ctx = new Context()
    await ctx.plugin(InvariantRegistry)
    const register = vi.spyOn(ctx.get('invariants'), 'register')
    await ctx.plugin(invariant)
    expect(register).toHaveBeenCalledWith('@deepseek-ai/dsh-tmux-context', expect.any(Function))
    // The same package name cannot be reserved twice: the JS companion now fails to mount.
    expect(() => invariant.apply(ctx)).toThrow('already registered')
  })
})

it('the build under test is the one this pass built: this checkout\'s .node, or in the WebAssembly pass the package beside TMUX_CONTEXT_PACKAGE', () => {
  const build = checkBuild(native)
  expect(build.kind).toBe(process.env.NAPI_RS_FORCE_WASI ? 'WebAssembly' : 'native')
  if (process.env.TMUX_CONTEXT_PACKAGE) expect(build.file).toBe(join(`${process.env.TMUX_CONTEXT_PACKAGE}-wasm32-wasi`, 'dsh-tmux-context.wasi.cjs'))
  else expect(build.file).toBe(join(fileURLToPath(new URL('..', import.meta.url)), `dsh-tmux-context.${hostPlatform()}.node`))
})

const WHERE = "(change it under config: of the tmux-context row in your profile's cordis.patch.yml, or cordis.yml)"

describe('config slips, as Cordis loads the plugin with its config (issue 39)', () => {
  /** A real Cordis Context with the AgentRegistry and a scripted ctx.shell; its logger's warnings recorded. */
  async function context() {
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    const warnings = []
    vi.spyOn(ctx.logger, 'warn').mockImplementation((...args) => void warnings.push(args.map(String).join(' ')))
    return { ctx, warnings }
  }

  it('a mistyped key (pane for panes): one warning naming it, the nearest key and the known ones; it still boots and reads, as the JS package does', async () => {
    const { ctx, warnings } = await context()
    await mount(native, { pane: true }, { ctx })
    expect(warnings).toEqual([
      `tmux-context: unknown config key pane (did you mean panes?) ignored; the known keys are refreshIntervalMs, queryTimeoutMs, panes, paneOptions, paneTitles, clients ${WHERE}`,
    ])
    const { decision } = await preStep(ctx, makeAgent())
    const [reading] = readings(decision).map((m) => m.content[0].text)
    // The slip left panes at its default: no roster.
    expect(reading).toMatch(/^tmux location \(turn 1\):\nsession main, window 1 "editor", pane 0 %3\n/)
    expect(reading).not.toContain('panes in this window')
    expect(warnings).toHaveLength(1)
    // The JavaScript package boots with the same row, silently.
    const theirs = await context()
    await mount(reference, { pane: true }, { ctx: theirs.ctx })
    expect(readings((await preStep(theirs.ctx, makeAgent())).decision)).toHaveLength(1)
    expect(theirs.warnings).toEqual([])
  })

  it('several unknown keys: still one warning, each key with its nearest; known keys alone: none', async () => {
    const { ctx, warnings } = await context()
    await mount(native, { refreshInterval: 0, timeout: 100, panes: false }, { ctx })
    expect(warnings).toEqual([
      `tmux-context: unknown config keys refreshInterval (did you mean refreshIntervalMs?), timeout (did you mean queryTimeoutMs?) ignored; the known keys are refreshIntervalMs, queryTimeoutMs, panes, paneOptions, paneTitles, clients ${WHERE}`,
    ])
    const quiet = await context()
    await mount(native, { refreshIntervalMs: 0, queryTimeoutMs: 100, panes: true }, { ctx: quiet.ctx })
    expect(quiet.warnings).toEqual([])
  })

  it.each([
    [{ panes: 'yes' }, '$.panes expected boolean | "window" | "session" but got "yes"'],
    [{ panes: 1 }, '$.panes expected boolean | "window" | "session" but got 1'],
    [{ refreshIntervalMs: 'soon' }, '$.refreshIntervalMs expected number but got soon'],
    [{ queryTimeoutMs: true }, '$.queryTimeoutMs expected number but got true'],
    // The keys around the agent (issue 42): each type refused where Cordis checks it.
    [{ panes: 'pane' }, '$.panes expected boolean | "window" | "session" but got "pane"'],
    [{ paneOptions: '@agent-name' }, '$.paneOptions expected array but got @agent-name'],
    [{ paneOptions: { 0: '@agent-name', length: 1 } }, '$.paneOptions expected array but got [object Object]'],
    [{ paneOptions: ['@agent-name', 1] }, '$.paneOptions[1] expected string but got 1'],
    [{ paneTitles: 'yes' }, '$.paneTitles expected boolean but got yes'],
    [{ clients: 1 }, '$.clients expected boolean but got 1'],
  ])('%j, rejected by the config layer (schemastery) before the plugin runs, says where to change it', async (config, said) => {
    const { ctx } = await context()
    // What it threw, or that it loaded (a Cordis fiber is no value for the failure to print).
    const thrown = await mount(native, config, { ctx }).then(() => 'it loaded', (error) => error.message)
    const at = [Object.keys(config)[0], ...(said.match(/\[(\d+)\]/)?.slice(1) ?? [])].join('.')
    expect(thrown).toContain(`invalid config:\n  - ${said} ${WHERE} (at ${at})`)
  })

  it.each([
    [{ refreshIntervalMs: -1 }],
    [{ refreshIntervalMs: 1.5 }],
  ])('%j, rejected by the plugin: the JS package\'s exact TypeError, then where to change it', async (config) => {
    const errorOf = async (plugin) => {
      const { ctx } = await context()
      return mount(plugin, config, { ctx }).then(() => undefined, (error) => error)
    }
    const [ours, theirs] = [await errorOf(native), await errorOf(reference)]
    expect(ours).toBeInstanceOf(TypeError)
    expect(theirs).toBeInstanceOf(TypeError)
    expect(ours.message).toBe(`${theirs.message} ${WHERE}`)
  })
})

describe('the keys around the agent (issue 42), as Cordis loads the plugin with its config', () => {
  const require = createRequire(import.meta.url)
  /** The build index.js loaded (the module whose exports are its apply, plan and read). */
  const binding = () =>
    Object.values(require.cache).find((m) => /\.(node|wasi\.cjs)$/.test(m?.filename) && ['apply', 'plan', 'read'].every((f) => typeof m.exports?.[f] === 'function')).exports

  /** A real Cordis Context loading the plugin with `config`: its warnings, and the config the build was applied with. */
  async function load(config) {
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    const warnings = []
    vi.spyOn(ctx.logger, 'warn').mockImplementation((...args) => void warnings.push(args.map(String).join(' ')))
    const apply = vi.spyOn(binding(), 'apply')
    const mounted = await mount(native, config, { ctx })
    return { ...mounted, warnings, applied: apply.mock.calls.map(([checked]) => checked) }
  }

  const OFF = { refreshIntervalMs: undefined, queryTimeoutMs: 5000, panes: 'off', paneOptions: [], paneTitles: false, clients: false }
  it.each([
    [{}, OFF],
    [{ panes: false }, OFF],
    [{ panes: true }, { ...OFF, panes: 'window' }],
    [{ panes: 'window' }, { ...OFF, panes: 'window' }],
    [{ panes: 'session' }, { ...OFF, panes: 'session' }],
    [{ paneOptions: [] }, OFF],
    [{ panes: true, paneOptions: ['@agent-name', '@role', '@task_id', '@X-9'] }, { ...OFF, panes: 'window', paneOptions: ['@agent-name', '@role', '@task_id', '@X-9'] }],
    // The longest name: @ and 32 characters.
    [{ panes: true, paneOptions: [`@${'a'.repeat(32)}`] }, { ...OFF, panes: 'window', paneOptions: [`@${'a'.repeat(32)}`] }],
    [{ panes: 'session', paneTitles: true }, { ...OFF, panes: 'session', paneTitles: true }],
    [{ paneTitles: false, clients: true }, { ...OFF, clients: true }],
    [
      { refreshIntervalMs: 0, queryTimeoutMs: 100, panes: 'session', paneOptions: ['@agent-name'], paneTitles: true, clients: true },
      { refreshIntervalMs: 0, queryTimeoutMs: 100, panes: 'session', paneOptions: ['@agent-name'], paneTitles: true, clients: true },
    ],
  ])('%j loads without a warning, and the build is applied with %j', async (config, checked) => {
    expect(native.Config(config)).toEqual(config)
    const { warnings, applied } = await load(config)
    expect(warnings).toEqual([])
    expect(applied).toHaveLength(1)
    expect(applied[0]).toStrictEqual(checked)
    // The build's Config, key for key and in this order.
    expect(Object.keys(applied[0])).toEqual(['refreshIntervalMs', 'queryTimeoutMs', 'panes', 'paneOptions', 'paneTitles', 'clients'])
  })

  it('every key spelled out at its default: the same command and the same reading as no key at all', async () => {
    const off = { panes: false, paneOptions: [], paneTitles: false, clients: false }
    const [spelled, none] = [await load(off), await load({})]
    expect(spelled.warnings).toEqual([])
    const [a, b] = [await preStep(spelled.ctx, makeAgent()), await preStep(none.ctx, makeAgent())]
    expect(spelled.record.resolved[0].command).toBe(none.record.resolved[0].command)
    expect(readings(a.decision).map(withoutId)).toEqual(readings(b.decision).map(withoutId))
  })

  const NAME = 'a tmux user option name: @ then 1 to 32 letters, digits, _ or -'
  const LIST = 'a list of at most 4 tmux user option names such as ["@agent-name"]'
  it.each([
    [['@a', '@b', '@c', '@d', '@e'], `paneOptions must be ${LIST}, got ["@a","@b","@c","@d","@e"]`],
    [['@agent name'], `paneOptions[0] must be ${NAME}, got "@agent name"`],
    [['@agent-name', '@x;rm -rf'], `paneOptions[1] must be ${NAME}, got "@x;rm -rf"`],
    [['@agent-name', '@x\n'], `paneOptions[1] must be ${NAME}, got "@x\\n"`],
    [[`@${'a'.repeat(33)}`], `paneOptions[0] must be ${NAME}, got "@${'a'.repeat(33)}"`],
    [['agent-name'], `paneOptions[0] must be ${NAME}, got "agent-name"`],
    [['@'], `paneOptions[0] must be ${NAME}, got "@"`],
    [['@#{pane_pid}'], `paneOptions[0] must be ${NAME}, got "@#{pane_pid}"`],
    [['@role', '@task', '@role'], `paneOptions[2] must be a name not listed before (paneOptions[0] is "@role"), got "@role"`],
    [null, `paneOptions must be ${LIST}, got null`],
  ])('paneOptions %j: Cordis loads the plugin, which refuses it naming the entry, the value, the rule and where to change it', async (paneOptions, said) => {
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    const thrown = await mount(native, { panes: true, paneOptions }, { ctx }).then(() => undefined, (error) => error)
    expect(thrown).toBeInstanceOf(TypeError)
    expect(thrown.message).toBe(`tmux-context: ${said} ${WHERE}`)
  })

  it.each([
    [{ paneOptions: '@agent-name' }, `paneOptions must be ${LIST}, got "@agent-name"`],
    [{ paneOptions: { 0: '@agent-name', length: 1 } }, `paneOptions must be ${LIST}, got [object Object]`],
    [{ paneOptions: ['@agent-name', 1] }, `paneOptions[1] must be ${NAME}, got 1`],
    // eslint-disable-next-line no-sparse-arrays
    [{ paneOptions: [, '@agent-name'] }, `paneOptions[0] must be ${NAME}, got undefined`],
    [{ paneTitles: 'yes' }, 'paneTitles must be true or false, got yes'],
    [{ paneTitles: null }, 'paneTitles must be true or false, got null'],
    [{ clients: 1 }, 'clients must be true or false, got 1'],
    [{ clients: 'true' }, 'clients must be true or false, got true'],
  ])('%j given to apply itself (past the config layer): the TypeError names the field, the value, the rule and where', (config, said) => {
    const call = () => native.apply({ on() {} }, config)
    expect(call).toThrow(TypeError)
    expect(call).toThrow(`tmux-context: ${said} ${WHERE}`)
  })

  it('paneOptions is read once, entry by entry, and the build gets a copy: a list changed after load changes nothing', async () => {
    const names = ['@agent-name']
    const { applied } = await load({ panes: true, paneOptions: names })
    names.push('@x;rm -rf')
    expect(applied[0].paneOptions).toEqual(['@agent-name'])
    expect(applied[0].paneOptions).not.toBe(names)
  })
})

describe.each(implementations)('config at plugin load (%s)', (_, plugin) => {
  const cases = [
    [-1, '-1'],
    [1.5, '1.5'],
    [Number.NaN, 'NaN'],
    [2 ** 53, '9007199254740992'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    ['5', '5'],
    [null, 'null'],
  ]
  it.each(cases)('refreshIntervalMs %s throws the exact TypeError', (value, shown) => {
    const call = () => plugin.apply({ on() {} }, { refreshIntervalMs: value })
    expect(call).toThrow(TypeError)
    expect(call).toThrow(`tmux-context: refreshIntervalMs must be a non-negative safe integer, got ${shown}`)
  })

  it.each([undefined, 0, -0, 1, 60_000, Number.MAX_SAFE_INTEGER])('refreshIntervalMs %s loads', (value) => {
    expect(plugin.apply({ on() {} }, { refreshIntervalMs: value })).toBeUndefined()
  })

  it('an invalid interval fails the plugin at load: it never listens', async () => {
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    const { record } = await mount(plugin, {}, { ctx, executor: 'shell', skipPlugin: true })
    // The JS package's message, then (ours) where to change it.
    const thrown = await Promise.resolve(ctx.plugin(plugin, { refreshIntervalMs: -1 })).catch((error) => error)
    expect(thrown).toBeInstanceOf(TypeError)
    expect(thrown.message).toMatch(/^tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1($| \(change it under config: of the tmux-context row in your profile's cordis\.patch\.yml, or cordis\.yml\)$)/)
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    expect(record.resolved).toHaveLength(0)
  })
})

describe.each(implementations)('pre-step listener (%s)', (_, plugin) => {
  it('injects a reading on the first step: exact text, shape, key order, frozen, UUID v4', async () => {
    const { ctx } = await mount(plugin)
    const agent = makeAgent()
    const { decision, base } = await preStep(ctx, agent, { turn: 4 })
    expect(decision).not.toBe(base)
    expect(decision.kind).toBe('enter')
    expect(decision.messages).toHaveLength(1)
    const [message] = decision.messages
    const text = 'tmux location (turn 4):\nsession main, window 1 "editor", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3'
    expect(message.content).toEqual([{ type: 'text', text }])
    expect(message.source).toEqual({ kind: 'plugin', plugin: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text }] })
    expect(Object.keys(message)).toEqual(['content', 'source', 'role', 'id'])
    expect(Object.keys(message.source)).toEqual(['kind', 'plugin', 'form', 'sections'])
    expect(message.role).toBe('user')
    expect(message.id).toMatch(UUID_V4)
    expect(isDeepFrozen(message)).toBe(true)
    const again = await preStep(ctx, makeAgent('session-b'))
    expect(again.decision.messages[0].id).not.toBe(message.id)
  })

  it('the reading is a valid user/message event for a real Session', async () => {
    const { ctx } = await mount(plugin)
    const agent = makeAgent()
    const { decision } = await preStep(ctx, agent)
    commit(agent, decision)
    const event = agent.session.events.at(-1)
    expect(event.type).toBe('user/message')
    expect(event.surfaceOp).toBe('append')
    expect(agent.session.deriveMessages().at(-1).content[0].text).toMatch(/^tmux location \(turn 1\):/)
  })

  it('keeps the downstream messages, the same objects, after the reading', async () => {
    const { ctx } = await mount(plugin)
    const user = createUserMessage({ content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } })
    const other = { kind: 'enter', messages: [user] }
    const { decision } = await preStep(ctx, makeAgent(), { downstream: other })
    expect(decision.messages).toHaveLength(2)
    expect(decision.messages[1]).toBe(user)
    expect(decision.messages[0].source.plugin).toBe('tmux-context')
  })

  it('runs before listeners registered earlier (prepend) and sees their decision', async () => {
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    const note = createUserMessage({ content: [{ type: 'text', text: 'note' }], source: { kind: 'user' } })
    ctx.on('agent/pre-step', async (_payload, next) => {
      const d = await next()
      return { kind: 'enter', messages: [...d.messages, note] }
    })
    await mount(plugin, {}, { ctx })
    const { decision } = await preStep(ctx, makeAgent())
    expect(decision.messages.map((m) => m.source.kind)).toEqual(['plugin', 'user'])
    expect(decision.messages[1]).toBe(note)
  })

  it('returns the same decision object, without querying, on reject, abort and later steps', async () => {
    const { ctx, record } = await mount(plugin)
    const agent = makeAgent()
    const reject = { kind: 'reject', reason: 'x' }
    expect((await preStep(ctx, agent, { downstream: reject })).decision).toBe(reject)
    const aborted = new AbortController()
    aborted.abort()
    const out = await preStep(ctx, agent, { signal: aborted.signal })
    expect(out.decision).toBe(out.base)
    const later = await preStep(ctx, agent, { step: 2 })
    expect(later.decision).toBe(later.base)
    expect(record.resolved).toHaveLength(0)
  })

  it('calls next() first, always', async () => {
    const { ctx } = await mount(plugin)
    const order = []
    const { decision } = await preStep(ctx, makeAgent(), { step: 3, downstream: undefined })
    expect(decision.kind).toBe('enter')
    const ctx2 = new Context()
    await ctx2.plugin(AgentRegistry)
    await mount(plugin, {}, { ctx: ctx2, respond: () => (order.push('run'), Promise.resolve(runResult(line()))) })
    const base = { kind: 'enter', messages: [] }
    const { agentEvents } = await import('@deepseek-ai/dsh-agent')
    await agentEvents(ctx2, makeAgent()).waterfall('agent/pre-step', { messages: [], turn: 1, step: 1, signal: new AbortController().signal }, () => {
      order.push('next')
      return Promise.resolve(base)
    })
    expect(order).toEqual(['next', 'run'])
  })

  it('passes the decision through when no executor is mounted', async () => {
    const { ctx } = await mount(plugin, {}, { executor: 'none' })
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
  })

  it('queries through resolve then run with the same signal, never start', async () => {
    const { ctx, record } = await mount(plugin)
    const signal = new AbortController().signal
    await preStep(ctx, makeAgent(), { signal })
    expect(record.resolved).toHaveLength(1)
    expect(record.resolved[0].signal).toBe(signal)
    expect(record.ran[0].command).toBe(record.resolved[0].command)
    expect(record.started).toBe(0)
    const command = record.resolved[0].command
    for (const fragment of [
      '[ -n "$TMUX_PANE" ]',
      `ps -o tty= -p ${process.pid}`,
      '#{pane_tty}',
      '[ "$pane_tty" = "/dev/$self_tty" ]',
      'tmux display-message -t "$TMUX_PANE" -p',
    ]) {
      expect(command).toContain(fragment)
    }
  })

  it.each([
    ['an Error from resolve()', 'resolve', new Error('policy denied'), 'policy denied'],
    ['a string from resolve()', 'resolve', 'nope', 'nope'],
    ['an Error rejection from run()', 'run', new Error('spawn EACCES'), 'spawn EACCES'],
    ['a non-Error rejection from run()', 'run', 42, '42'],
  ])('contains %s as one warning and no location', async (_label, where, error, shown) => {
    const { ctx, record } = await mount(plugin, {}, { respond: () => Promise.reject(error) })
    if (where === 'resolve') record.resolveError = error
    const warn = vi.spyOn(ctx.logger, 'warn')
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn).toHaveBeenCalledWith(`tmux location query failed: ${shown}; injecting no location this turn`)
  })

  it.each([
    ['exit 1', runResult(line(), 1)],
    ['a signal (exitCode null)', runResult(line(), null)],
    ['seven fields', runResult(line().split('\\t').slice(0, 7).join('\\t'))],
    ['nine fields', runResult(line() + '\\tx')],
    ['an empty pane id', runResult(line({ paneId: '' }))],
    ['empty stdout', runResult('')],
  ])('gives no location and no warning on %s', async (_label, result) => {
    const { ctx } = await mount(plugin, {}, { respond: () => Promise.resolve(result) })
    const warn = vi.spyOn(ctx.logger, 'warn')
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    expect(warn).not.toHaveBeenCalled()
  })

  it('reads only up to the first newline of stdout', async () => {
    const { ctx } = await mount(plugin, {}, { respond: () => Promise.resolve(runResult(line() + '\nsecond\\tline')) })
    const { decision } = await preStep(ctx, makeAgent())
    expect(readings(decision)).toHaveLength(1)
  })

  it('suppresses an unchanged location and re-injects on change, across turns', async () => {
    let current = line()
    const { ctx, record } = await mount(plugin, {}, { respond: () => Promise.resolve(runResult(current)) })
    const agent = makeAgent()
    expect(readings((await turn(ctx, agent, 1)).decision)).toHaveLength(1)
    const second = await turn(ctx, agent, 2)
    expect(second.decision).toBe(second.base)
    current = line({ windowName: 'renamed' })
    const third = await turn(ctx, agent, 3)
    expect(readings(third.decision)[0].content[0].text).toContain('window 1 "renamed"')
    current = line()
    expect(readings((await turn(ctx, agent, 4)).decision)).toHaveLength(1)
    expect(record.ran).toHaveLength(4)
  })

  it('compares against the newest reading only; a non-text newest reading counts as none', async () => {
    const { ctx } = await mount(plugin)
    const agent = makeAgent()
    const state = 'session main, window 1 "editor", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3'
    const reading = (content) =>
      createUserMessage({ content, source: { kind: 'plugin', plugin: 'tmux-context', form: 'snapshot', sections: [] } })
    agent.session.append('user/message', reading([{ type: 'text', text: `old header\n${state}` }]), { surfaceOp: 'append' })
    let out = await preStep(ctx, agent)
    expect(out.decision).toBe(out.base)
    agent.session.append('user/message', reading([{ type: 'image', mediaType: 'image/png', data: 'AAAA' }]), { surfaceOp: 'append' })
    out = await preStep(ctx, agent)
    expect(readings(out.decision)).toHaveLength(1)
  })

  it('ignores other plugins’ and users’ messages when scanning', async () => {
    const { ctx } = await mount(plugin)
    const agent = makeAgent()
    const { decision } = await turn(ctx, agent, 1)
    expect(readings(decision)).toHaveLength(1)
    agent.session.append('user/message', createUserMessage({ content: [{ type: 'text', text: 'x\ny' }], source: { kind: 'plugin', plugin: 'other' } }), { surfaceOp: 'append' })
    agent.session.append('user/message', createUserMessage({ content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } }), { surfaceOp: 'append' })
    const out = await preStep(ctx, agent, { turn: 2 })
    expect(out.decision).toBe(out.base)
  })

  it('holds queries back within refreshIntervalMs on the Date.now() clock', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(1_000_000)
    let current = line()
    const { ctx, record } = await mount(plugin, { refreshIntervalMs: 60_000 }, { respond: () => Promise.resolve(runResult(current)) })
    const agent = makeAgent()
    await turn(ctx, agent, 1)
    const readAt = agent.session.events.at(-1).time
    current = line({ windowName: 'moved' })
    vi.setSystemTime(readAt + 59_999)
    let out = await turn(ctx, agent, 2)
    expect(out.decision).toBe(out.base)
    expect(record.ran).toHaveLength(1)
    vi.setSystemTime(readAt - 1)
    out = await turn(ctx, agent, 3)
    expect(readings(out.decision)).toHaveLength(1)
    const second = agent.session.events.at(-1).time
    vi.setSystemTime(second + 60_000)
    current = line({ windowName: 'again' })
    out = await turn(ctx, agent, 4)
    expect(readings(out.decision)).toHaveLength(1)
  })

  it('interval 0 queries every turn', async () => {
    const { ctx, record } = await mount(plugin, { refreshIntervalMs: 0 })
    const agent = makeAgent()
    await turn(ctx, agent, 1)
    await turn(ctx, agent, 2)
    expect(record.ran).toHaveLength(2)
  })

  it('two sessions schedule independently', async () => {
    const { ctx } = await mount(plugin)
    const a = makeAgent('session-a')
    const b = makeAgent('session-b')
    expect(readings((await turn(ctx, a, 1)).decision)).toHaveLength(1)
    expect(readings((await turn(ctx, b, 1)).decision)).toHaveLength(1)
    const again = await turn(ctx, a, 2)
    expect(again.decision).toBe(again.base)
  })

  it('a resumed session (new plugin instance over the same durable events) keeps suppressing', async () => {
    const first = await mount(plugin)
    const agent = makeAgent('session-r')
    await turn(first.ctx, agent, 1)
    await first.fiber.dispose()
    const second = await mount(plugin)
    const resumed = makeAgent('session-r', agent.session.events)
    const out = await turn(second.ctx, resumed, 2)
    expect(out.decision).toBe(out.base)
    expect(second.record.ran).toHaveLength(1)
  })

  it('is disposed with its context', async () => {
    const { ctx, record, fiber } = await mount(plugin)
    await fiber.dispose()
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    expect(record.resolved).toHaveLength(0)
  })
})

describe('beyond the JS package: errors inside the listener never fail the turn', () => {
  async function brokenAgent(plugin) {
    const { ctx } = await mount(plugin)
    const agent = makeAgent()
    Object.defineProperty(agent, 'session', {
      get() {
        throw new Error('session store unavailable')
      },
    })
    return { ctx, agent }
  }

  it('native: one warning and the decision passes through', async () => {
    const { ctx, agent } = await brokenAgent(native)
    const warn = vi.spyOn(ctx.logger, 'warn')
    const out = await preStep(ctx, agent)
    expect(out.decision).toBe(out.base)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0][0]).toContain('session store unavailable')
  })

  it('js: the same error fails the turn', async () => {
    const { ctx, agent } = await brokenAgent(reference)
    await expect(preStep(ctx, agent)).rejects.toThrow('session store unavailable')
  })

  it('native: a malformed downstream decision passes through with a warning', async () => {
    const { ctx } = await mount(native)
    const warn = vi.spyOn(ctx.logger, 'warn')
    const odd = { kind: 'enter', messages: 'not an array' }
    const out = await preStep(ctx, makeAgent(), { downstream: odd })
    expect(out.decision).toBe(odd)
    expect(warn).toHaveBeenCalledTimes(1)
  })

  it('native: a rejection from next() still propagates (it is the loop’s own failure)', async () => {
    const { ctx } = await mount(native)
    const { agentEvents } = await import('@deepseek-ai/dsh-agent')
    const run = agentEvents(ctx, makeAgent()).waterfall(
      'agent/pre-step',
      { messages: [], turn: 1, step: 1, signal: new AbortController().signal },
      () => Promise.reject(new Error('downstream failed')),
    )
    await expect(run).rejects.toThrow('downstream failed')
  })
})

describe('the order of the contract: the log is read before the query (step 4, then step 6)', () => {
  it('a reading stored while the query runs is not the one compared: both packages inject (from a break-in)', async () => {
    const state = 'session main, window 1 "editor", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3'
    const out = []
    for (const [, plugin] of implementations) {
      const agent = makeAgent()
      const stored = { content: [{ type: 'text', text: `tmux location (turn 0):\n${state}` }], source: { kind: 'plugin', plugin: 'tmux-context', form: 'snapshot', sections: [] } }
      // Another writer stores this very location while tmux answers.
      const respond = async () => (commit(agent, { messages: [createUserMessage(stored)] }), runResult(line()))
      const { ctx } = await mount(plugin, {}, { respond })
      out.push(readings((await preStep(ctx, agent)).decision).length)
    }
    expect(out).toEqual([1, 1])
  })
})

describe('side by side: the same turns give the same messages', () => {
  it('identical reading JSON apart from id over a scripted sequence', async () => {
    const script = [line(), line(), line({ windowName: 'b' }), line({ layout: 'x,1x1,0,0,1' }), line({ paneId: '' }), line()]
    const outputs = []
    for (const [, plugin] of implementations) {
      let i = 0
      const { ctx } = await mount(plugin, {}, { respond: () => Promise.resolve(runResult(script[i++])) })
      const agent = makeAgent()
      const seen = []
      for (let t = 1; t <= script.length; t++) seen.push(readings((await turn(ctx, agent, t)).decision).map(withoutId))
      outputs.push(seen)
    }
    expect(outputs[0]).toEqual(outputs[1])
  })
})

describe('beyond the JS package: both harness generations', () => {
  it('native reads through ctx.bash when no ctx.shell is mounted (0.0.x harness)', async () => {
    const { ctx, record } = await mount(native, {}, { executor: 'bash' })
    const { decision } = await preStep(ctx, makeAgent())
    expect(readings(decision)).toHaveLength(1)
    expect(record.resolved).toHaveLength(1)
  })

  it('js: ctx.bash alone gives no reading', async () => {
    const { ctx, record } = await mount(reference, {}, { executor: 'bash' })
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    expect(record.resolved).toHaveLength(0)
  })

  it('prefers ctx.shell when both are mounted', async () => {
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    const bash = await mount(native, {}, { ctx, executor: 'bash', skipPlugin: true })
    const shell = await mount(native, {}, { ctx, executor: 'shell' })
    await preStep(ctx, makeAgent())
    expect(shell.record.resolved).toHaveLength(1)
    expect(bash.record.resolved).toHaveLength(0)
  })
})

describe('beyond the JS package: a bounded query', () => {
  it('passes queryTimeoutMs (default 5000) to resolve() as timeoutMs', async () => {
    const a = await mount(native)
    await preStep(a.ctx, makeAgent())
    expect(a.record.resolved[0].timeoutMs).toBe(5000)
    const b = await mount(native, { queryTimeoutMs: 1234 })
    await preStep(b.ctx, makeAgent())
    expect(b.record.resolved[0].timeoutMs).toBe(1234)
  })

  it('asks the run() executor for 1 MiB of stdout: rc.8’s bash-local keeps only its last 64 KB otherwise', async () => {
    const a = await mount(native)
    await preStep(a.ctx, makeAgent())
    expect(a.record.resolved[0].stdoutMaxBytes).toBe(1 << 20)
  })

  it.each([
    [0, '0'],
    [-1, '-1'],
    [1.5, '1.5'],
    [2 ** 31, '2147483648'],
    [Number.NaN, 'NaN'],
    ['100', '100'],
    [null, 'null'],
  ])('queryTimeoutMs %s fails at load with the exact TypeError', (value, shown) => {
    const call = () => native.apply({ on() {} }, { queryTimeoutMs: value })
    expect(call).toThrow(TypeError)
    expect(call).toThrow(`tmux-context: queryTimeoutMs must be a positive safe integer no greater than 2147483647, got ${shown}`)
  })

  it.each([
    ['yes', 'yes'],
    ['pane', 'pane'],
    ['Session', 'Session'],
    [1, '1'],
    [null, 'null'],
  ])('panes %s fails at load with a TypeError that names it and where to change it', (value, shown) => {
    const call = () => native.apply({ on() {} }, { panes: value })
    expect(call).toThrow(TypeError)
    expect(call).toThrow(`tmux-context: panes must be true, false, "window" or "session", got ${shown} (change it under config: of the tmux-context row in your profile's cordis.patch.yml, or cordis.yml)`)
  })

  it('an executor that ignores the bound cannot hold the turn: native passes through, JS still waits', async () => {
    const never = () => new Promise(() => {})
    const ours = await mount(native, { queryTimeoutMs: 50 }, { respond: never })
    const warn = vi.spyOn(ours.ctx.logger, 'warn')
    const out = await preStep(ours.ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    expect(warn).not.toHaveBeenCalled()
    const theirs = await mount(reference, {}, { respond: never })
    const settled = await Promise.race([preStep(theirs.ctx, makeAgent()).then(() => 'settled'), new Promise((r) => setTimeout(r, 1500, 'waiting'))])
    expect(settled).toBe('waiting')
  })

  it('overlapping queries each get the bound: stuck ones pass through, answered ones read', async () => {
    let n = 0
    const respond = () => (n++ % 2 ? new Promise(() => {}) : Promise.resolve(runResult(line())))
    const { ctx } = await mount(native, { queryTimeoutMs: 30 }, { respond })
    const outs = await Promise.all([1, 2, 3, 4].map((i) => preStep(ctx, makeAgent(`s${i}`))))
    expect(outs.map((o) => (Object.is(o.decision, o.base) ? 'pass' : readings(o.decision).length))).toEqual([1, 'pass', 1, 'pass'])
  })

  it('after a query timed out, turns within the backoff pass through at once, without a query', async () => {
    let stuck = true
    const respond = () => (stuck ? new Promise(() => {}) : Promise.resolve(runResult(line())))
    const { ctx, record } = await mount(native, { queryTimeoutMs: 30 }, { respond })
    const first = await preStep(ctx, makeAgent('s1'))
    expect(first.decision).toBe(first.base)
    stuck = false
    const next = await preStep(ctx, makeAgent('s2'))
    expect(next.decision).toBe(next.base)
    expect(record.ran).toHaveLength(1)
  })

  it('a result that arrives after the bound is ignored; one that arrives in time is used', async () => {
    let release
    const late = () => new Promise((r) => (release = () => r(runResult(line()))))
    const { ctx } = await mount(native, { queryTimeoutMs: 20 }, { respond: late })
    const out = await preStep(ctx, makeAgent())
    expect(out.decision).toBe(out.base)
    release()
    await new Promise((r) => setTimeout(r, 10))
    const quick = await mount(native, { queryTimeoutMs: 20 }, { respond: () => new Promise((r) => setTimeout(() => r(runResult(line())), 5)) })
    expect(readings((await preStep(quick.ctx, makeAgent())).decision)).toHaveLength(1)
  })
})
