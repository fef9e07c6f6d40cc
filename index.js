// Package entry of @deepseek-ai/dsh-tmux-context (native). The Rust build decides what to ask tmux and what
// it means; this file loads it, checks the config, reads the payload and the session, calls the executor
// within our own bound, and builds the message (docs/design.md).
import { createRequire } from 'node:module'
import z from '@deepseek-ai/schemastery'

const require = createRequire(import.meta.url)
const manifest = require('./package.json')
// Node's own timers, which no fake timers replace: our bound holds on the real clock.
const { clearTimeout, setTimeout } = require('node:timers')
// As CommonJS: an ESM import of node:fs makes its module facade, about 7 ms at import (bench row 3a).
const { existsSync } = require('node:fs')
const PLUGIN = 'tmux-context'

/** The build (binding.cjs's exports), or `{ unavailable }`: why none can load here. A broken install throws. */
function load() {
  let binding = direct()
  try {
    binding ??= require('./binding.cjs')
  } catch (error) {
    if (error?.code === 'MODULE_NOT_FOUND' && String(error.message).includes("'./binding.cjs'")) {
      // Built, but a NAPI_RS_ variable made direct() pass over the build for binding.cjs: name the variable, not the build.
      const set = LOADER_VARIABLES.filter((v) => process.env[v])
      if (set.length > 0 && existsSync(new URL(ownBuild(), import.meta.url))) {
        const named = `${set.join(' and ')} ${set.length === 1 ? 'is' : 'are'} set`
        throw new Error(
          `${manifest.name}: ${named}, which makes this package pass over its build beside index.js (${ownBuild()}) and load through binding.cjs, napi-rs's loader, and binding.cjs is missing; unset ${set.join(' and ')} to load that build (or run \`npm run build\`, which writes binding.cjs).`,
          { cause: error },
        )
      }
      throw new Error(`${manifest.name}: binding.cjs is missing: this is a source checkout that was not built; run \`npm run build\`.`, { cause: error })
    }
    const { broken, unavailable } = require('./loader-errors.cjs').classify(error, manifest)
    if (broken) throw broken
    return { unavailable: `${manifest.name}: ${unavailable}` }
  }
  if (['apply', 'plan', 'read'].every((f) => typeof binding[f] === 'function')) return binding
  const set = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  throw new Error(`${manifest.name}: the build that loaded is not this package's (it lacks apply, plan and read): ${set ? `NAPI_RS_NATIVE_LIBRARY_PATH is set to ${set}, another package's build; unset it` : 'reinstall the package'}.`)
}

/**
 * The build in reach without binding.cjs (whose platform checks cost 2–3 ms more: bench row 3a): in a source
 * checkout the one built beside this file, as binding.cjs tries first, so that no installed copy in an ancestor
 * folder's node_modules stands in for it; else this platform's binary package by name. Neither where a NAPI_RS_
 * variable asks binding.cjs to choose.
 */
function direct() {
  if (LOADER_VARIABLES.some((v) => process.env[v])) return undefined
  const own = ownBuild()
  // One stat where the package is installed (its tarball holds no .node); a checkout's build that is there loads or stops here.
  if (existsSync(new URL(own, import.meta.url))) {
    try {
      return require(own)
    } catch (error) {
      throw new Error(`${manifest.name}: this checkout's build ${own} is there but failed to load: ${String(error?.message).split('\n')[0]}; run \`npm run build\`.`, { cause: error })
    }
  }
  return quietly(() => require(`${manifest.name}-${platformName()}`))
}

/** The variables of binding.cjs (napi-rs's loader) that choose the build: where one is set, binding.cjs chooses. */
const LOADER_VARIABLES = ['NAPI_RS_NATIVE_LIBRARY_PATH', 'NAPI_RS_FORCE_WASI', 'NAPI_RS_ENFORCE_VERSION_CHECK']

/** napi-rs's name of this platform, as binding.cjs tries it first: `linux-x64-gnu`. */
const platformName = () => `${process.platform}-${process.arch}${{ linux: '-gnu', win32: '-msvc' }[process.platform] ?? ''}`

/** A source checkout's build, relative to this file: `./dsh-tmux-context.linux-x64-gnu.node`. */
const ownBuild = () => `./${manifest.napi.binaryName}.${platformName()}.node`

const native = load()

/** Cordis plugin name: `'tmux-context'`. */
export const name = PLUGIN
/** Services this plugin needs: `['agents']`. */
export const inject = ['agents']

const WHERE = "(change it under config: of the tmux-context row in your profile's cordis.patch.yml, or cordis.yml)"

/**
 * Schemastery validation for the config; the exact rules are checked by `apply`. What Cordis validates through
 * (the Standard Schema `~standard.validate`) names where to change a rejected value, as `apply`'s errors do.
 */
export const Config = saysWhere(
  z.object({
    refreshIntervalMs: z.number().description('Minimum ms between durable readings in one session; omit or 0 to inject on every change.'),
    queryTimeoutMs: z.number().description('Bound on one tmux query, ms (default 5000); passed to the executor as timeoutMs.'),
    panes: z
      .union([z.boolean(), z.const('window'), z.const('session')])
      .description("Also list the panes of the agent's window (true or \"window\": id, index, command, directory), or of its whole session (\"session\"); default false."),
    paneOptions: z
      .array(z.string())
      .default(undefined)
      .description('With panes on, show these tmux user options of each pane where set (at most 4 distinct names such as "@agent-name": @ then 1 to 32 letters, digits, _ or -); default none.'),
    paneTitles: z.boolean().description("With panes on, show each pane's title unless it is tmux's default (the host name); default false."),
    clients: z.boolean().description('Add a line saying how many clients are attached to the session and how many show the agent\'s window; default false.'),
  }),
)

/** The config keys, as the schema names them. */
const KNOWN = Object.keys(Config.dict)

/** `schema`, its `~standard.validate` issues each ending with WHERE. */
function saysWhere(schema) {
  const standard = schema['~standard']
  const validate = (value) => {
    const result = standard.validate(value)
    return result.issues === undefined ? result : { issues: result.issues.map((issue) => ({ ...issue, message: `${issue.message} ${WHERE}` })) }
  }
  Object.defineProperty(schema, '~standard', { value: { ...standard, validate }, enumerable: false })
  return schema
}

/** The unknown-key warning's bound, in characters: whatever the config holds, one short log line. */
const WARNING_MAX = 1024
/** A key longer than this many characters is shown by its start and how many more it has. */
const KEY_SHOWN = 48
/** A key shown as it is: one a person types; any other is quoted and escaped. */
const PLAIN_KEY = /^[A-Za-z0-9_$.-]{1,48}$/

/**
 * One warning naming the config's keys that no rule reads (a slip such as `pane` for `panes`), or none. At most
 * WARNING_MAX characters: each key cut and, unless plain, JSON-quoted with every control or format character
 * escaped (no key can start a log line or colour a terminal); the keys that do not fit are counted, and only
 * those shown are compared with the known ones.
 */
function unknownKeys(config) {
  const unknown = quietly(() => Object.keys(config).filter((key) => !KNOWN.includes(key)), [])
  if (unknown.length === 0) return undefined
  const head = `tmux-context: unknown config ${unknown.length === 1 ? 'key' : 'keys'} `
  const tail = ` ignored; the known keys are ${KNOWN.join(', ')} ${WHERE}`
  const left = (n) => (n === 0 ? '' : ` and ${n} more (${unknown.length} in all)`)
  let named = ''
  let shown = 0
  for (const key of unknown) {
    const entry = `${shown === 0 ? '' : ', '}${shownKey(key)} (did you mean ${nearest(key)}?)`
    if (head.length + named.length + entry.length + left(unknown.length - shown - 1).length + tail.length > WARNING_MAX) break
    named += entry
    shown++
  }
  return `${head}${named}${left(unknown.length - shown)}${tail}`
}

/** `key` as the warning shows it: as it is when plain, else its first KEY_SHOWN characters JSON-quoted and escaped, and the cut. */
function shownKey(key) {
  if (PLAIN_KEY.test(key)) return key
  // Never half a surrogate pair at the cut (a lone one would be escaped, but reads as nothing).
  const end = key.length > KEY_SHOWN && /[\uD800-\uDBFF]/.test(key[KEY_SHOWN - 1]) ? KEY_SHOWN - 1 : KEY_SHOWN
  const start = key.slice(0, end)
  // JSON.stringify escapes C0 controls, quotes and lone surrogates; the rest (DEL, C1 controls such as CSI,
  // format characters such as bidi overrides, line and paragraph separators) as \uXXXX too.
  const quoted = JSON.stringify(start).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => c.split('').map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''))
  return key.length > end ? `${quoted} [cut: ${key.length - end} more characters at the end]` : quoted
}

/** The known key that contains `key` (or is contained in it), else the one the fewest edits away (letter case ignored; a long key by its start). */
function nearest(key) {
  const k = String(key).slice(0, 256).toLowerCase()
  // Required here, where a key is mistyped: not a cost of every load.
  const { distance } = require('fastest-levenshtein')
  const score = (known) => (known.toLowerCase().includes(k) || k.includes(known.toLowerCase()) ? 0 : 1e6) + distance(k, known.toLowerCase())
  return KNOWN.reduce((best, known) => (score(known) < score(best) ? known : best))
}

/** The config's values, each read once (a null config throws the JS package's TypeError); a bad one throws a TypeError naming it. */
function checkConfig(config) {
  const refreshIntervalMs = config.refreshIntervalMs
  const [timeout, listed, options, titles, clients] = [config.queryTimeoutMs, config.panes, config.paneOptions, config.paneTitles, config.clients]
  const queryTimeoutMs = timeout === undefined ? 5000 : timeout
  const bad = (field, rule, value) => new TypeError(`tmux-context: ${field} must be ${rule}, got ${String(value)} ${WHERE}`)
  if (refreshIntervalMs !== undefined && !(Number.isSafeInteger(refreshIntervalMs) && refreshIntervalMs >= 0)) throw bad('refreshIntervalMs', 'a non-negative safe integer', refreshIntervalMs)
  if (!(Number.isSafeInteger(queryTimeoutMs) && queryTimeoutMs >= 1 && queryTimeoutMs <= 2147483647)) throw bad('queryTimeoutMs', 'a positive safe integer no greater than 2147483647', queryTimeoutMs)
  const panes = listed === undefined ? 'off' : PANES.get(listed)
  if (panes === undefined) throw bad('panes', 'true, false, "window" or "session"', listed)
  const paneOptions = optionNames(options, bad)
  for (const [field, value] of [['paneTitles', titles], ['clients', clients]]) if (value !== undefined && typeof value !== 'boolean') throw bad(field, 'true or false', value)
  return { refreshIntervalMs, queryTimeoutMs, panes, paneOptions, paneTitles: titles === true, clients: clients === true }
}

/** What each accepted `panes` value asks for: `true` is the window, as before `"session"` was. */
const PANES = new Map([[false, 'off'], [true, 'window'], ['window', 'window'], ['session', 'session']])

/** A tmux user option name `paneOptions` may list: it enters the tmux command, so nothing else may. */
const OPTION_NAME = /^@[A-Za-z0-9_-]{1,32}$/

/**
 * `paneOptions` as a new list of at most 4 distinct option names (none where absent), its length and each entry
 * read once; else the TypeError naming the entry (its index), its value (a string JSON-quoted, so that a space
 * shows) and the rule. A name listed twice is refused, not merged: the list is short, and a slip is told.
 */
function optionNames(options, bad) {
  if (options === undefined) return []
  const show = (value) => (typeof value === 'string' ? JSON.stringify(value) : String(value))
  const rule = 'a list of at most 4 tmux user option names such as ["@agent-name"]'
  if (!Array.isArray(options)) throw bad('paneOptions', rule, show(options))
  const length = options.length
  if (length > 4) throw bad('paneOptions', rule, quietly(() => JSON.stringify(options), `${length} names`))
  const names = []
  for (let i = 0; i < length; i++) {
    const name = options[i]
    if (typeof name !== 'string' || !OPTION_NAME.test(name)) throw bad(`paneOptions[${i}]`, 'a tmux user option name: @ then 1 to 32 letters, digits, _ or -', show(name))
    const first = names.indexOf(name)
    if (first !== -1) throw bad(`paneOptions[${i}]`, `a name not listed before (paneOptions[${first}] is ${show(name)})`, show(name))
    names.push(name)
  }
  return names
}

/** Registers the prepended `agent/pre-step` listener; a bad config throws, an unknown key warns once. Where no build loads, it warns once why. */
export function apply(ctx, config) {
  const checked = checkConfig(config)
  const slip = unknownKeys(config)
  if (slip !== undefined) quietly(() => ctx.logger.warn(slip))
  if (native.unavailable !== undefined) return void ctx.logger?.warn?.(native.unavailable)
  const plugin = native.apply(checked, process.pid)
  const warned = new Set()
  // A logger that throws costs only the line; `once` warns once per message.
  const log = (level, message) => message != null && !warned.has(message) && quietly(() => ctx.logger[level === 'once' ? (warned.add(message), 'warn') : level](message))
  // `ctx.get` read once: through Cordis's context proxy each read costs an Error with its stack (bench row 1a).
  const get = ctx.get
  ctx.on('agent/pre-step', (payload, next) => preStep(ctx, get, plugin, checked.queryTimeoutMs, log, payload, next), { prepend: true })
  log('debug', loadedLine())
}

/** The debug line at load: which build, its version, platform and folder. */
function loadedLine() {
  const wasm = native.__napiBindingTarget === 'wasm32-wasi'
  const file = Object.values(require.cache).find((m) => m?.exports === native && /\.(node|wasi\.cjs)$/.test(m.filename))?.filename
  const { basename, dirname } = require('node:path')
  const platform = wasm ? 'wasm32-wasi' : (file ? basename(file).split('.').slice(1, -1).join('.') : 'unknown platform')
  return `tmux-context: ${wasm ? 'WebAssembly' : 'native'} build ${manifest.version} (${platform}) loaded from ${file ? dirname(file) : 'an unknown place'}`
}

/**
 * The listener: `await next()` first; then, unless rejected or aborted, `plan`, the query and `read`.
 * Nothing escapes: a failure is one warning, and the step keeps `next()`'s decision.
 */
async function preStep(ctx, get, plugin, timeoutMs, log, payload, next) {
  // Read before `next()`, as the JS package destructures the payload; a read that throws is a failed step.
  const read = quietly(() => {
    const { agent, turn, step, signal } = payload
    return { agent, turn, step, signal, before: generationOf(agent) }
  })
  const decision = await next()
  try {
    if (read === undefined) throw new TypeError('the pre-step payload cannot be read')
    const { agent, turn, step, signal, before } = read
    if (decision.kind === 'reject' || signal.aborted) return decision
    const { seen, shadowed, replaced } = sessionOf(agent.session, before)
    const command = native.plan(plugin, step === 1, Date.now(), seen?.state, seen?.time ?? NaN, shadowed, replaced)
    if (command === null) return decision
    const shell = get.call(ctx, 'shell') ?? get.call(ctx, 'bash')
    const ended = shell === undefined ? { end: 'noExecutor' } : await ask(shell, command, signal, timeoutMs, log)
    const said = native.read(plugin, String(turn), seen?.state, ended.end, ended.exitCode, ended.stdout, ended.detail)
    log('warn', said?.warn)
    log('debug', said?.debug)
    return said?.text == null ? decision : enter(decision, said.text, ended.ownKind)
  } catch (error) {
    log('warn', `tmux-context: pre-step failed: ${messageOf(error)}; passing the step through unchanged`)
    return decision
  }
}

/** What `read()` returns, or `otherwise` where it throws. */
function quietly(read, otherwise) {
  try {
    return read()
  } catch {
    return otherwise
  }
}

/** `error.message` for an `Error`, else `String(error)`: the JS package's wording. */
const messageOf = (error) => quietly(() => (error instanceof Error ? error.message : String(error)), 'an error that cannot be shown')

/**
 * The query through the executor, `run(resolve(request))`, else (0.1.7+) `(await execute(spec)).result()`, under a
 * `workspace-write` policy narrowed to `read-only` (the query only reads): what `read` takes, and the source kind.
 */
async function ask(bash, command, signal, timeoutMs, log) {
  // Each member read once: every read of a Cordis service goes through its proxy (bench row 1a).
  const run = bash.run
  const execute = run === undefined ? bash.execute : undefined
  const viaRun = run !== undefined
  if (!viaRun && typeof execute !== 'function') {
    log('once', 'tmux-context: the executor has neither run() nor execute(); no tmux location is read')
    return { end: 'noExecutor' }
  }
  try {
    // Room for tmux's whole answer in both generations (rc.8's bash-local keeps only its last 64 KB).
    const request = { command, signal, timeoutMs, stdoutMaxBytes: STDOUT_MAX_BYTES }
    let spec = bash.resolve(request)
    const policy = quietly(() => spec?.sandboxPolicy)
    if (quietly(() => policy?.mode) === 'workspace-write') {
      const narrowed = bash.resolve({ ...request, sandboxPolicy: { ...policy, mode: 'read-only' } })
      if (quietly(() => narrowed?.sandboxPolicy?.mode) === 'read-only') spec = narrowed
    }
    if (viaRun && typeof run !== 'function') throw new TypeError('bash.run is not a function')
    const execution = viaRun ? undefined : awaited(execute.call(bash, spec))
    const pending = viaRun ? run.call(bash, spec) : resultOf(execution)
    const result = await withinBound(pending, Math.min(timeoutMs + 1000, 2147483647))
    if (result !== EXPIRED) return { ...outcomeOf(result), ownKind: !viaRun }
    // Our bound ran out: an execute() handle is told to stop (the run() generation has no handle).
    execution?.then((handle) => quietly(() => handle.kill?.()), () => {})
    return { end: 'expired' }
  } catch (error) {
    return { end: 'failed', detail: messageOf(error) }
  }
}

const EXPIRED = Symbol('expired')

/** What the query asks the executor to keep of its stdout: 1 MiB, a reading's worth many times over. */
const STDOUT_MAX_BYTES = 1 << 20

/** `await value` as a promise of its own: `await` calls no `then` a promise carries itself, as the JS package's. */
const awaited = async (value) => await value

/** `(await execution).result()`: the 0.1.7+ executor's run result. */
async function resultOf(pending) {
  const execution = await pending
  return execution.result()
}

/** `await pending`, or `EXPIRED` once `ms` have passed on the real clock. */
function withinBound(pending, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms, EXPIRED).unref()
    const settle = (end) => (value) => (clearTimeout(timer), end(value))
    awaited(pending).then(settle(resolve), settle(reject))
  })
}

/** A `ShellRunResult`'s fields as `read` takes them, or what it lacks. */
function outcomeOf(result) {
  if (typeof result !== 'object' || result === null) return { end: 'lacks', detail: `an object (got ${typeof result})` }
  const { exitCode } = result
  if (exitCode !== null && typeof exitCode !== 'number') return { end: 'lacks', detail: `a numeric exitCode (got ${typeof exitCode})` }
  const text = (stream) => (stream?.text == null ? undefined : String(stream.text))
  // A cut stdout holds only a part of tmux's answer (its tail, with rc.8's executors): never read.
  if (result.stdout?.truncated === true && exitCode === 0) return { end: 'truncated' }
  return { end: result.timedOut === true ? 'timedOut' : 'exited', exitCode, stdout: text(result.stdout), detail: text(result.stderr) }
}

/** `{ kind: 'enter', messages: [reading, ...decision.messages] }`, the reading a deep-frozen user message. */
function enter(decision, text, ownKind) {
  // A string would spread into its characters: a malformed decision, not a list.
  const messages = decision.messages
  if (typeof messages !== 'object') throw new TypeError('messages is not iterable')
  const freeze = Object.freeze
  const sections = freeze([freeze({ name: PLUGIN, text })])
  const source = ownKind ? { kind: PLUGIN, form: 'snapshot', sections } : { kind: 'plugin', plugin: PLUGIN, form: 'snapshot', sections }
  const content = freeze([freeze({ type: 'text', text })])
  const reading = freeze({ content, source: freeze(source), role: 'user', id: crypto.randomUUID() })
  return { kind: 'enter', messages: [reading, ...messages] }
}

// ---- the session: its newest reading, and what the model still sees of it ----

/** What is known of each session object: how far its log was read, its newest reading, the surface looked at. */
const sessions = new WeakMap()

/** `agent.session.surface.replaceGeneration`, where it is a finite number (read before `next()` too, so it never throws). */
function generationOf(agent) {
  const generation = quietly(() => agent?.session?.surface?.replaceGeneration)
  return Number.isFinite(generation) ? generation : undefined
}

/** Whether `event` is a reading of this plugin (`source: { kind: 'plugin', plugin }`, or 0.1.7+'s `{ kind: plugin }`). */
function isReading(event) {
  const source = event?.type === 'user/message' ? event.data?.source : undefined
  const kind = source?.kind
  return (kind === 'plugin' && source.plugin === PLUGIN) || kind === PLUGIN
}

/** A reading's `{ state, time, seq }` (the text after its first `\n`), or `null` where its first content block is not text. */
function readingOf(event) {
  let state
  try {
    const [block] = event.data.content
    if (block?.type !== 'text') return null
    const text = block.text
    const newline = text.indexOf('\n')
    state = newline === -1 ? '' : text.slice(newline + 1)
  } catch {
    return null // a content or text no harness writes (the JS package's step fails there): no text
  }
  return { state: typeof state === 'string' ? state : '', time: quietly(() => Number(event.time), NaN), seq: quietly(() => event.seq) }
}

/**
 * The newest reading the model still sees (`seen`), whether a newer one was shadowed just now, and whether the
 * surface was replaced inside `next()` (`before`: its generation then) or since the last look;
 * reading only the events appended since the last step (the whole log, newest first, on first
 * sight or when the log is not the one read).
 */
function sessionOf(session, before) {
  const log = session.events
  const events = Array.isArray(log) ? log : [...log]
  let known = sessions.get(session)
  if (known === undefined || known.read > events.length || (known.read > 0 && events[known.read - 1] !== known.last)) {
    known = { read: 0, last: undefined, reading: undefined, seen: undefined, sighting: undefined }
    sessions.set(session, known)
  }
  for (let i = events.length - 1; i >= known.read; i--) {
    if (isReading(events[i])) {
      known.reading = readingOf(events[i])
      break
    }
  }
  known.read = events.length
  known.last = events[events.length - 1]
  const generation = generationOf({ session })
  const changed = (then) => generation !== undefined && then !== undefined && then !== generation
  const replaced = changed(before) || changed(known.seen)
  known.seen = generation
  const last = known.sighting
  const shown = visible(session, known, generation)
  // Shadowed just now: a reading already known to be shadowed was asked about once (from a break-in).
  const newly = !shown && !(last?.seq === known.reading?.seq && last.visible === false)
  return { seen: shown ? (known.reading ?? undefined) : undefined, shadowed: known.reading != null && newly, replaced }
}

/** Whether `surface.nodes` still holds the newest reading's seq; looked up again only when the surface was replaced since. */
function visible(session, known, generation) {
  const seq = known.reading?.seq
  if (!generation || typeof seq !== 'number') return true
  const last = known.sighting
  if (last?.seq === seq && (last.generation === generation || !last.visible)) return last.visible
  const nodes = session.surface.nodes
  const holds = typeof nodes?.lastIndexOf !== 'function' || nodes.lastIndexOf(seq) !== -1
  known.sighting = { seq, generation, visible: holds }
  return holds
}
