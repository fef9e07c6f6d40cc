// Package entry of @deepseek-ai/dsh-tmux-context (native): `name`, `inject` (as the JS package writes
// them), the schemastery `Config`, and `apply` over the Rust build's. The build is this platform's
// `.node` beside this file, else the binary package `@deepseek-ai/dsh-tmux-context-<platform>`,
// loaded directly where the platform is cheap to know, else through the loader `napi build`
// generates (binding.cjs: the same two, else the WebAssembly package). Where no build can load,
// importing still succeeds and `apply` warns once (a harness boot never fails on this package).
// One module: it imports no file of its own (the wording of a failed load, loader-errors.cjs, is
// read only then). The functions that run at import, at apply and in a first step are
// parenthesized, `const f = (function f() {…})`, so that V8 compiles them with the module rather
// than parsing them a second time at their first call: in a fresh process that saves the import
// and apply about 0.15 ms, and the first turn after a resume about 0.15 ms, for about 0.1 ms more
// at import (bench/README.md, rows 1e and 3a).
import z from '@deepseek-ai/schemastery'


// ---- loader (platform packages; their errors are worded in loader-errors.cjs) ----
// Node's own modules through `process.getBuiltinModule` (Node 20.16+), each where it is first needed,
// rather than static imports of their ESM facades (with those, the bench's import row took about
// 5 ms, not 2); an older Node imports them at load.
const getBuiltinModule = process.getBuiltinModule?.bind(process)
const imported = getBuiltinModule
  ? undefined
  : Object.fromEntries(await Promise.all(['node:fs', 'node:module', 'node:path', 'node:url'].map(async (name) => [name, await import(name)])))
const builtin = (name) => (getBuiltinModule ? getBuiltinModule(name) : imported[name])
/** This package's name and its binaries' name (package.json's `name` and `napi.binaryName`, which a test holds them to). */
const PACKAGE = '@deepseek-ai/dsh-tmux-context'
const BINARY = 'dsh-tmux-context'

/** musl's dynamic loader, `/lib/ld-musl-<arch>.so.1`, for the CPUs with a musl build. */
const MUSL_LOADER = { x64: '/lib/ld-musl-x86_64.so.1', arm64: '/lib/ld-musl-aarch64.so.1' }

/**
 * The napi-rs names of this platform's builds that are cheap to try first: on Linux glibc's build
 * and musl's, musl's first where musl's loader is installed (a glibc build can load on musl through
 * gcompat; the build of the other libc otherwise fails to load, so /usr/bin/ldd, which binding.cjs
 * reads to choose, is not read), and FreeBSD's; none elsewhere (macOS tries a universal build first,
 * Windows a GNU one for a shared-library Node).
 */
const hostPlatforms = (function hostPlatforms() {
  const { platform, arch } = process
  if (platform === 'freebsd') return [`freebsd-${arch}`]
  if (platform !== 'linux') return []
  if (arch === 'arm') return ['linux-arm-gnueabihf']
  const [gnu, musl, loader] = [`linux-${arch}-gnu`, `linux-${arch}-musl`, MUSL_LOADER[arch]]
  return loader !== undefined && builtin('node:fs').existsSync(loader) ? [musl, gnu] : [gnu, musl]
})

/** How the path of this package's folder in a node_modules tree ends, but for the package's own name. */
const SCOPE_FOLDER = `/node_modules/${PACKAGE.slice(0, PACKAGE.indexOf('/'))}/`

/** The file the build was loaded from, where the fast path knows it. */
let loadedFile

/**
 * This platform's build through `process.dlopen`, for each of [`hostPlatforms`]: the file beside this
 * one (as binding.cjs tries it first), then the binary package from the folder where Node's
 * resolution stops in a node_modules tree (the first of this package's own node_modules, the scope
 * folder's, and the scope folder itself that holds the package; the `.node` its package.json names
 * as `main`), else wherever
 * `import.meta.resolve` finds it; all without the CommonJS loader and binding.cjs (about 2 ms of a
 * fresh process), and in an installed tree without a thrown error on the way (a missing file's
 * dlopen error and a resolution cost about 0.7 ms there). `undefined` when none loads or an
 * environment variable of the generated loader asks for its own choice, and binding.cjs then
 * decides (and words any error).
 */
const loadHostBinary = (function loadHostBinary() {
  const { NAPI_RS_NATIVE_LIBRARY_PATH, NAPI_RS_FORCE_WASI, NAPI_RS_ENFORCE_VERSION_CHECK } = process.env
  if (NAPI_RS_NATIVE_LIBRARY_PATH || NAPI_RS_FORCE_WASI || NAPI_RS_ENFORCE_VERSION_CHECK) return undefined
  const pathOf = (url) => builtin('node:url').fileURLToPath(url)
  // `import.meta.dirname`: Node 20.11+.
  const here = import.meta.dirname ?? builtin('node:path').dirname(pathOf(import.meta.url))
  const fs = builtin('node:fs')
  // In a node_modules tree this folder is `<scope>/<name>`, `<scope>` ending in `/node_modules/@deepseek-ai`.
  const at = here.lastIndexOf(SCOPE_FOLDER)
  const scope = at >= 0 && !here.includes('/', at + SCOPE_FOLDER.length) ? here.slice(0, at + SCOPE_FOLDER.length - 1) : undefined
  for (const platform of hostPlatforms()) {
    const file = `${BINARY}.${platform}.node`
    const local = `${here}/${file}`
    let binding = fs.existsSync(local) ? dlopen(() => local) : undefined
    if (binding !== undefined) return binding
    const name = `${PACKAGE}-${platform}`
    const folders = [`${here}/node_modules/${name}`]
    if (scope !== undefined) folders.push(`${scope}/node_modules/${name}`, `${scope}/${BINARY}-${platform}`)
    const folder = folders.find((f) => fs.existsSync(`${f}/package.json`))
    binding = dlopen(() => {
      if (folder === undefined) return pathOf(import.meta.resolve(name))
      // The package's `main`, as Node's resolution reads it: our binary packages name the `.node`.
      const { main } = JSON.parse(fs.readFileSync(`${folder}/package.json`, 'utf8'))
      if (main !== file && main !== `./${file}`) throw new Error(`${folder}/package.json names another main`)
      return `${folder}/${file}`
    })
    if (binding !== undefined) return binding
  }
  return undefined
})

/** The exports of the addon at `file()`, or `undefined` where it is not there or does not load (binding.cjs then tries it again and says why). */
const dlopen = (function dlopen(file) {
  try {
    const path = file()
    const module = { exports: {} }
    process.dlopen(module, path)
    loadedFile = path
    return module.exports
  } catch {
    return undefined
  }
})

/** The binding, or why none can load (`{ unavailable }`); a broken install throws. */
const loadNative = (function loadNative() {
  const binding = loadHostBinary()
  if (binding !== undefined) return binding
  const require = builtin('node:module').createRequire(import.meta.url)
  try {
    return require('./binding.cjs')
  } catch (error) {
    // The package name, the binary name and the platform list: package.json, where they are written.
    const manifest = require('./package.json')
    if (error?.code === 'MODULE_NOT_FOUND' && String(error.message).includes('binding.cjs')) {
      throw new Error(`${manifest.name}: binding.cjs is missing: this is a source checkout that was not built; run \`npm run build\`.`, { cause: error })
    }
    // The wording of a failure: a file of its own, read only here (about 0.07 ms of every import otherwise).
    let failure
    try {
      const { broken, unavailable } = require('./loader-errors.cjs').classify(error, manifest)
      if (!broken && typeof unavailable !== 'string') throw new TypeError('its classify gave no wording')
      failure = { broken, unavailable }
    } catch (unworded) {
      // An install whose loader-errors.cjs is gone or altered (by hand): still no failed boot, and both causes told.
      const first = (e) => {
        try {
          return String(e?.message ?? e).split('\n')[0]
        } catch {
          return 'an error that cannot be shown'
        }
      }
      return { unavailable: `${manifest.name}: no build loaded (${first(error)}), and loader-errors.cjs, which words why, did not load (${first(unworded)}); reinstall the package. The plugin is inactive: every pre-step passes through without a reading.` }
    }
    if (failure.broken) throw failure.broken
    return { unavailable: `${manifest.name}: ${failure.unavailable}` }
  }
})
// ---- end of loader ----

// ---- the walk over a session's events, handed to the native apply ----
// The newest-first walk of the log: V8 walks an array of objects at a few nanoseconds an element,
// where a walk through Node-API costs about half a microsecond an event. It lives here, not in a
// module of its own (a second ESM module costs a fresh process about 0.4 ms to import), and needs no
// code compiled from strings. It only finds candidates; the native build decides what one holds.

/** `[...events]` for a log that is not an array (a `Set`, a generator, a string), as the JS package reads it. */
function spread(events) {
  const iterator = events[Symbol.iterator]
  if (typeof iterator !== 'function') throw new TypeError('agent.session.events is not iterable')
  // The iterator read once, as the spread itself reads it.
  return [...{ [Symbol.iterator]: () => iterator.call(events) }]
}

const isObject = (function isObject(v) {
  return (typeof v === 'object' && v !== null) || typeof v === 'function'
})

/**
 * Whether `e` is a `user/message` whose `data.source` names `plugin` (`{ kind: 'plugin', plugin }`,
 * or 0.1.7+'s `{ kind: plugin }`), each property read once, as the JS package reads it (a
 * primitive's through its prototype), where `null` and `undefined` read as nothing rather than throw.
 */
function isCandidate(e, plugin) {
  if (e?.type !== 'user/message') return false
  const s = e.data?.source
  const kind = s?.kind
  return (kind === 'plugin' && s.plugin === plugin) || kind === plugin
}

/**
 * Logs up to this many events are walked as a reversed copy (`[...events].reverse()`, as the JS
 * package reads them: about 2× faster in V8 than indexing the log backwards); longer ones by index,
 * where the copy would cost more than it saves.
 */
const COPY_UP_TO = 16_384
const ARRAY_ITERATOR = Array.prototype[Symbol.iterator]

/**
 * The newest reading of `plugin` in `events[from..to]`: `[state, time, seq]` (what follows the first
 * `\n` of its text, `Number(time)` or `NaN`, `seq`), `null` where its first content block is not text, `undefined`
 * where there is none.
 */
const newestReading = (function newestReading(events, from, to, plugin) {
  // `events` is an array (the native build spreads any other log first). The copy reads through
  // the array's iterator: only where that is Array.prototype's does it read what indexing reads.
  const length = events.length
  if (to - from > 64 && length <= COPY_UP_TO && events[Symbol.iterator] === ARRAY_ITERATOR) {
    const log = [...events].reverse()
    const at = firstInCopy(log, length - to, length - from, plugin)
    return at < 0 ? undefined : readingOf(log[at])
  }
  const at = lastInLog(events, from, to, plugin)
  return at < 0 ? undefined : readingOf(events[at])
})

// The two walks below read as the JS package reads a log (its unguarded reads, written in each
// loop: in a fresh process the loop runs in V8's interpreter, where a call per event made the first
// step at 10 000 events about 0.2 ms longer, 1.44–1.49 against 1.24–1.29 ms) until an event where
// that meets `null` or `undefined` (a `TypeError`), then from that event on as [`isCandidate`]
// reads it; what a getter throws is thrown. Two functions, not one with a direction: V8 keeps each
// one's feedback (a copy's elements, the log's own) apart.

/** The index of the first candidate in `copy[start..end]`, or -1. */
const firstInCopy = (function firstInCopy(copy, start, end, plugin) {
  let i = start
  try {
    for (; i < end; i++) {
      const e = copy[i]
      if (e.type !== 'user/message') continue
      const s = e.data.source
      const kind = s.kind
      if ((kind === 'plugin' && s.plugin === plugin) || kind === plugin) return i
    }
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
    for (; i < end; i++) if (isCandidate(copy[i], plugin)) return i
  }
  return -1
})

/** The index of the last candidate in `events[from..to]`, or -1. */
const lastInLog = (function lastInLog(events, from, to, plugin) {
  let i = to - 1
  try {
    for (; i >= from; i--) {
      const e = events[i]
      if (e.type !== 'user/message') continue
      const s = e.data.source
      const kind = s.kind
      if ((kind === 'plugin' && s.plugin === plugin) || kind === plugin) return i
    }
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
    for (; i >= from; i--) if (isCandidate(events[i], plugin)) return i
  }
  return -1
})

/**
 * A candidate's reading ([`newestReading`]): the first content block as `const [block] = content`
 * takes it (a non-iterable array-like's by index, where its length says there is one: the JS
 * package's step fails there); the state as the JS package takes it, `block.text.indexOf('\n')`
 * then `block.text.slice(…)` (a string's, a `String` object's, an array's, another object's own
 * methods'; the text read again for the second), handed on as it is (`''` where it is no string: it
 * equals no reading's state), `null` where those methods are missing or
 * throw (the JS package's step fails there too); the time as `now >= previous.time` coerces it
 * (`+time`: a numeric string or a Date counts as its number), `NaN` where that throws; `e.seq`,
 * which the JS package never reads, `undefined` where reading it throws. One function (it runs
 * once a step): in a fresh process each function costs a compile.
 */
const readingOf = (function readingOf(e) {
  const content = e.data.content
  if (!isObject(content)) return null
  const iterator = content[Symbol.iterator]
  let block
  if (iterator === ARRAY_ITERATOR && Array.isArray(content)) {
    // An array, read as its iterator reads it: the length as a number (`+`: ToLength's test), then
    // the first element (about 1 µs less a step than the iterator itself).
    if (+content.length >= 1) block = content[0]
  } else if (typeof iterator === 'function') {
    // The iterator method read once, as the spread in `spread` reads it; the iterator closed after.
    ;[block] = { [Symbol.iterator]: () => iterator.call(content) }
  } else {
    const length = content.length
    if (!(typeof length === 'number' && length >= 1 && length !== Infinity)) return null
    block = content[0]
  }
  // `block?.type`: a primitive block reads through its prototype, as there.
  if (block == null || block.type !== 'text') return null
  const text = block.text
  let newline
  try {
    newline = text.indexOf('\n')
  } catch {
    return null
  }
  let state = ''
  if (newline !== -1) {
    const again = block.text
    try {
      state = again.slice(newline + 1)
    } catch {
      return null
    }
  }
  const at = e.time
  let time = Number.NaN
  let seq
  try {
    time = +at
  } catch {}
  try {
    seq = e.seq
  } catch {}
  return [typeof state === 'string' ? state : '', time, seq]
})

// ---- end of the walk ----

// ---- the listener, and what the native build hands back to JS ----

/** What `fieldOf` gives for `turn` where reading it throws. */
const UNREADABLE = Symbol('unreadable')

/** `payload[key]`, or `otherwise` where reading it throws (`null` payloads included). */
const fieldOf = (function fieldOf(payload, key, otherwise = undefined) {
  try {
    return payload[key]
  } catch {
    return otherwise
  }
})

/** `String(turn)`; `''` where the turn could not be read or converted. */
const turnText = (function turnText(turn) {
  if (turn === UNREADABLE) return ''
  try {
    return String(turn)
  } catch {
    return ''
  }
})

/** `agent.session.surface.replaceGeneration` when the surface is an object and it a finite number. */
function generationOf(agent) {
  try {
    const surface = agent.session.surface
    if (!isObject(surface)) return undefined
    const generation = surface.replaceGeneration
    return typeof generation === 'number' && Number.isFinite(generation) ? generation : undefined
  } catch {
    return undefined
  }
}

/**
 * The `agent/pre-step` listener of the applied `plugin` (the native build's handle): the payload's
 * `agent`, `turn`, `step` and `signal` are read in the order the JS package's
 * `async ({ agent, turn, step, signal }, next)` reads them (a read that throws counts as missing),
 * then, after the first step, the surface's replace generation (a compaction inside `next()`
 * changes it); then `await next()` (its throw or rejection is the step's), and the native build
 * decides (contract steps 2 to 8): the decision itself, a new one, or a query it started, which
 * this frame awaits within our own bound and hands back (`queryResult`, `queryFailed` or
 * `queryExpired`, once). `ctx` stays referenced until then, as the JS package's closure holds it.
 */
const preStep = (async function preStep(plugin, ctx, payload, next) {
  const agent = fieldOf(payload, 'agent')
  const turn = fieldOf(payload, 'turn', UNREADABLE)
  const firstStep = fieldOf(payload, 'step') === 1
  const signal = fieldOf(payload, 'signal')
  const generation = isObject(agent) && !firstStep ? generationOf(agent) : undefined
  const decision = await next()
  const step = native.afterNext(plugin, decision, agent, signal, turnText(turn), firstStep, generation)
  if (step !== STARTED) return step
  const { called, execute, boundMs, query } = startedQuery
  startedQuery = undefined
  let result
  try {
    result = await withinBound(execute ? resultOf(called) : called, boundMs)
  } catch (reason) {
    return native.queryFailed(query, reason, decision, ctx)
  }
  return result === EXPIRED ? native.queryExpired(query, decision, ctx) : native.queryResult(query, result, decision, agent, ctx)
})

/** What `afterNext` returns when it started a query, and that query (set by `started`, taken by `preStep` at once). */
const STARTED = Object.freeze({})
let startedQuery

/**
 * The native build started a query: `called` is what the executor returned (for `execute()`, the
 * handle whose `result()` is awaited), `boundMs` our own bound (`queryTimeoutMs` and a grace, ms),
 * `query` its handle. Returns the marker `afterNext` hands back.
 */
const started = (function started(called, execute, boundMs, query) {
  startedQuery = { called, execute, boundMs, query }
  return STARTED
})

/** What `withinBound` gives when our own bound ran out first. */
const EXPIRED = Symbol('expired')

/** `(await execution).result()`, the `execute()` generation's result. */
const resultOf = (async function resultOf(execution) {
  const handle = await execution
  const result = handle.result
  if (typeof result !== 'function') throw new TypeError('execution.result is not a function')
  return result.call(handle)
})

/**
 * `await value`, or `EXPIRED` once `boundMs` have passed on the monotonic clock (the native
 * build's, which no fake timers replace). The bounds share one sweep timer (`unref`: it never keeps
 * the process alive), armed for the soonest deadline.
 */
const withinBound = (function withinBound(value, boundMs) {
  return new Promise((resolve, reject) => {
    const entry = { deadline: native.monotonicMs() + boundMs, expire: () => resolve(EXPIRED) }
    bounds.add(entry)
    ;(async () => {
      try {
        resolve(await value)
      } catch (reason) {
        reject(reason)
      } finally {
        // The timer stays armed (unref'd) for the next query: arming one per query costs a timer
        // list each (about 2 µs a pre-step).
        bounds.delete(entry)
      }
    })()
    armUnlessSettled()
  })
})

/** Microtask turns a query that settles at once takes to settle here: `run()`'s one, `execute()`'s up to five. */
const SETTLE_TURNS = 6

/**
 * Arms the sweep timer [`SETTLE_TURNS`] after a query started, unless no bound is in flight by
 * then: an executor that answers at once then arms no timer, whose first `setTimeout` costs a fresh
 * process about 0.3 ms (Node's timer lists and their async hooks are made then). A query that
 * settled still arms one for the others in flight, whose timer may be lost (fired early, armed on
 * fake timers since uninstalled). Each deadline stands from its query's start either way.
 */
const armUnlessSettled = (async function armUnlessSettled() {
  for (let turn = 0; turn < SETTLE_TURNS; turn++) await undefined
  if (bounds.size === 0) return
  try {
    armSweep()
  } catch {
    // Without our own timer, the executor's time-out still bounds the query (the JS package's only bound).
  }
})

/** The bounds in flight (`{ deadline, expire }`), and the live sweep timer (`{ timer, at, armedWith, disarm }`). */
const bounds = new Set()
let sweep

/**
 * Arms the sweep timer for the soonest deadline in flight, unless one armed by today's `setTimeout`
 * fires by then: one timer at most is live, and no bound waits for a longer one's timer. A timer
 * armed by another `setTimeout` (fake timers since uninstalled, or before a wrapper was installed)
 * is left to fire on its own, and no longer counted on.
 */
function armSweep() {
  let soonest = Infinity
  for (const entry of bounds) soonest = Math.min(soonest, entry.deadline)
  const old = sweep
  const sameClock = old !== undefined && old.armedWith === setTimeout
  if (sameClock && old.at <= soonest) return
  if (sameClock) old.disarm(old.timer)
  const now = native.monotonicMs()
  const delay = Math.min(Math.max(Math.floor(soonest - now), 1), 2147483647)
  // Set before `setTimeout` runs: a stub that calls back at once finds the timer it fired.
  const armed = (sweep = { timer: undefined, at: now + delay, armedWith: setTimeout, disarm: clearTimeout })
  try {
    armed.timer = setTimeout(() => sweepBounds(armed), delay)
  } catch (error) {
    if (sweep === armed) sweep = undefined
    throw error
  }
  armed.timer?.unref?.()
}

/**
 * The sweep timer `armed` fired: every bound whose deadline has passed expires, and the timer is
 * armed again for the soonest one left, unless it fired well before its time (fake timers, or a stub
 * that calls back at once: arming again from here would never let `vi.runAllTimers()` end; the next
 * query arms one).
 */
function sweepBounds(armed) {
  const now = native.monotonicMs()
  const early = now + 10 < armed.at
  if (sweep === armed) sweep = undefined
  for (const entry of bounds) {
    if (entry.deadline <= now + 2) {
      bounds.delete(entry)
      entry.expire()
    }
  }
  if (bounds.size > 0 && !early && sweep === undefined) armSweep()
}

/**
 * `{ kind: 'enter', messages: [reading, ...decision.messages] }`, as the JS package spreads a list
 * (the downstream messages are the same objects; anything but an object is malformed), with the reading the deep-frozen user message of
 * `text`: `{ content: [{ type: 'text', text }], source, role: 'user', id }`, its source `{ kind:
 * 'plugin', plugin: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text }] }`,
 * or with `ownKind` (the `execute()` generation) `{ kind: 'tmux-context', form: 'snapshot', sections }`.
 */
const enter = (function enter(decision, text, ownKind, id) {
  const messages = decision.messages
  // A string would spread into its characters: a malformed decision, not a list.
  if (!isObject(messages)) throw new TypeError('decision.messages is not iterable')
  const freeze = Object.freeze
  const sections = freeze([freeze({ name: 'tmux-context', text })])
  const source = ownKind
    ? { kind: 'tmux-context', form: 'snapshot', sections }
    : { kind: 'plugin', plugin: 'tmux-context', form: 'snapshot', sections }
  const content = freeze([freeze({ type: 'text', text })])
  const reading = freeze({ content, source: freeze(source), role: 'user', id })
  return { kind: 'enter', messages: [reading, ...messages] }
})
// ---- end of the listener ----

/** What the native `apply` takes as its `helpers`. */
const helpers = Object.freeze({ spread, newestReading, started, enter })

const native = loadNative()

/** Cordis plugin name: `'tmux-context'`. */
export const name = 'tmux-context'
/** Services this plugin needs: `['agents']`. */
export const inject = ['agents']
/**
 * The debug line at load that tells which implementation is mounted: this build, its version and
 * platform (`wasm32-wasi` for the WebAssembly build), and the directory it loaded from (made once,
 * on first use).
 */
let loadedMessage
function loaded() {
  if (loadedMessage === undefined) {
    // The build is the module whose exports binding.cjs handed back: `<binaryName>.<platform>.node`,
    // or the WebAssembly loader `<binaryName>.wasi.cjs`.
    const file = loadedFile ?? Object.values(builtin('node:module').createRequire(import.meta.url).cache).find((m) => m?.exports === native && /\.(node|wasi\.cjs)$/.test(m.filename))?.filename
    const wasm = file?.endsWith('.wasi.cjs')
    const { basename, dirname } = builtin('node:path')
    const platform = wasm ? 'wasm32-wasi' : file ? basename(file).split('.').slice(1, -1).join('.') : 'unknown platform'
    const version = native.VERSION
    loadedMessage = `tmux-context: ${wasm ? 'WebAssembly' : 'native'} build ${version} (${platform}) loaded from ${file ? dirname(file) : 'an unknown place'}`
  }
  return loadedMessage
}

/**
 * The config rules of the native build (src/config.rs), read here, each key once, so that a getter
 * that throws, or a value `String()` cannot convert, throws what it throws, as in the JavaScript
 * package; the native `apply` then gets the values as a plain object. Where no build could load, a
 * bad config still fails at plugin load, with the same `TypeError`.
 */
const checkConfig = (function checkConfig(config) {
  // `config[key]` as the JS package reads it (a null or undefined config throws its TypeError).
  const refresh = config.refreshIntervalMs
  if (refresh !== undefined && !(Number.isSafeInteger(refresh) && refresh >= 0)) {
    throw new TypeError(`tmux-context: refreshIntervalMs must be a non-negative safe integer, got ${String(refresh)}`)
  }
  const timeout = config.queryTimeoutMs
  if (timeout !== undefined && !(Number.isSafeInteger(timeout) && timeout >= 1 && timeout <= 2147483647)) {
    throw new TypeError(`tmux-context: queryTimeoutMs must be a positive safe integer no greater than 2147483647, got ${String(timeout)}`)
  }
  const checked = {}
  if (refresh !== undefined) checked.refreshIntervalMs = refresh
  if (timeout !== undefined) checked.queryTimeoutMs = timeout
  return checked
})

/**
 * Register the prepended `agent/pre-step` listener for the lifetime of `ctx` (synchronous, returns
 * `undefined`); throws `TypeError` on invalid config. Logs one `ctx.logger.debug` line naming the
 * build, its version, platform and directory. Where no build can load on this platform, it checks
 * the config the same way, logs one `ctx.logger.warn` saying why and how to install one, and
 * registers nothing: every pre-step passes through untouched.
 */
export const apply = (function apply(ctx, config) {
  const checked = checkConfig(config)
  if (native.unavailable !== undefined) {
    ctx.logger?.warn?.(native.unavailable)
    return
  }
  const plugin = native.apply(ctx, checked, helpers, process.pid)
  ctx.on('agent/pre-step', preStep.bind(undefined, plugin, ctx), { prepend: true })
  try {
    if (debugMayShow(ctx)) ctx.logger?.debug?.(loaded())
  } catch {
    // A logger that throws costs nothing but the line.
  }
})

/**
 * Whether a debug line can reach one of Cordis's log exporters (`ctx.logger.exporters`: a level of
 * 3 in an exporter's `levels`, or, for an exporter without its own, the `logger.level` the context
 * intercepts), so that a line nobody takes costs nothing (Cordis's first logger call costs a fresh
 * process about 0.2 ms). A logger unlike Cordis's: yes.
 */
const debugMayShow = (function debugMayShow(ctx) {
  const exporters = ctx.logger?.exporters
  if (!(exporters instanceof Map)) return true
  let level
  for (let i = ctx[Symbol.for('cordis.intercept')]; i != null && 'logger' in i; i = Object.getPrototypeOf(i)) {
    if (Object.hasOwn(i, 'logger')) level ??= i.logger?.level
  }
  for (const { levels } of exporters.values()) {
    // Cordis reads `levels[name] ?? levels.default` through the prototype: a levels object of any
    // other shape than a plain one may hold a level for this logger's name where we cannot see it.
    if (levels != null && Object.getPrototypeOf(levels) !== Object.prototype) return true
    if (levels != null && Object.getOwnPropertyNames(levels).some((name) => levels[name] >= 3)) return true
    if ((levels?.default ?? level ?? 1) >= 3) return true
  }
  return false
})
/** Schemastery validation for the config; the exact rules are checked by `apply`. */
export const Config = z.object({
  refreshIntervalMs: z
    .number()
    .description('Minimum ms between durable readings in one session; omit or 0 to inject on every change.'),
  queryTimeoutMs: z
    .number()
    .description('Bound on one tmux query, ms (default 5000); passed to the executor as timeoutMs.'),
})
