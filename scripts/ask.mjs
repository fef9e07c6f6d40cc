// `npm run ask -- [--port 8765] [--new] [--log <file>] [--timeout-ms 10000] "<message>"`: one turn in a
// session of a running `dsh --profile web` (README "Try it"), through the HTTP API its browser UI uses
// (e2e/lib/web-api.mjs). The first call (or --new) opens a session and keeps its id in .tmp/ask-<port>.json;
// each call sends one message, waits for the turn to end, and prints whether the plugin gave the model a
// reading in that turn (its text) or none, then the model's answer.
// Bounded: it waits at most --timeout-ms for dsh to listen (dsh takes a second or more to start), and as
// long again for each answer of the API (a port that accepts and never answers is not dsh). Where nothing
// listens, it names dsh's log (--log, else $DSH_HOME/web.log, where README's trial writes it) and prints
// the log's last error line: a value the plugin rejected stops dsh at start, and says why only there.
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { promptTurn, rpc } from '../e2e/lib/web-api.mjs'

const USAGE = 'usage: npm run ask -- [--port 8765] [--new] [--log <file>] [--timeout-ms 10000] "<message>"   (with `dsh --profile web --no-open --port 8765` running)'
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: 'string', default: '8765' },
    new: { type: 'boolean', default: false },
    log: { type: 'string' },
    'timeout-ms': { type: 'string', default: '10000' },
  },
})
const text = positionals.join(' ').trim()
const timeoutMs = Number(values['timeout-ms'])
if (text === '' || !(Number.isSafeInteger(timeoutMs) && timeoutMs > 0)) {
  console.error(USAGE)
  process.exit(2)
}
const port = values.port
const base = `http://127.0.0.1:${port}`
const store = join(dirname(dirname(fileURLToPath(import.meta.url))), '.tmp', `ask-${port}.json`)
const log = values.log ?? (process.env.DSH_HOME ? join(process.env.DSH_HOME, 'web.log') : undefined)
const start = `dsh --profile web --no-open --port ${port} > "$DSH_HOME/web.log" 2>&1 < /dev/null &`
const seconds = (ms) => `${ms / 1000} s`

try {
  const refused = await untilListening()
  if (refused) {
    console.error(notListening(refused))
    process.exit(1)
  }
  const bounded = { timeoutMs }
  let sessionId = !values.new && existsSync(store) ? JSON.parse(readFileSync(store, 'utf8')).sessionId : undefined
  const open = async (why) => {
    const id = (await rpc(base, 'session.create', { cwd: process.cwd() }, bounded)).sessionId
    mkdirSync(dirname(store), { recursive: true })
    writeFileSync(store, JSON.stringify({ sessionId: id }) + '\n')
    console.log(`new session ${id}${why}`)
    return id
  }
  sessionId ??= await open('')
  let t
  try {
    t = await promptTurn(base, sessionId, text, bounded)
  } catch (error) {
    // The kept session is not this dsh's (a new DSH_HOME, say): open one, as `--new` would.
    if (!String(error?.message).includes('session-not-found')) throw error
    sessionId = await open(` (the session kept in ${store} is not this dsh's: a new DSH_HOME?)`)
    t = await promptTurn(base, sessionId, text, bounded)
  }
  const where = log === undefined ? '' : ` dsh's warnings are in ${log}.`
  if (t.readings.length === 0 && !t.everRead) {
    console.log(`turn ${t.turn}: no reading, and none in this session at all: is the tmux-context row mounted (the profile's cordis.patch.yml, then restart dsh), and does dsh run in a tmux pane?${where}`)
  } else if (t.readings.length === 0) {
    console.log(`turn ${t.turn}: no reading (nothing tmux-context tells changed since the session's last reading)`)
  }
  for (const r of t.readings) console.log(`turn ${t.turn}: the model received this reading (seq ${r.seq}):\n${r.text.replace(/^/gm, '  | ')}`)
  console.log(`the model answered: ${t.answer ?? '(nothing)'}`)
  // What the plugin warned since dsh started (a mistyped config key, say), as the log row wrote it.
  const warned = log !== undefined && existsSync(log) ? tail(log).split(/\r?\n/).filter((l) => l.startsWith('warn [tmux-context] ')) : []
  if (warned.length > 0) console.log(`dsh's log, ${log}, holds ${warned.length === 1 ? 'a warning' : `${warned.length} warnings`} of tmux-context:\n${warned.slice(-5).map((l) => `  ${shown(l)}`).join('\n')}`)
  process.exitCode = t.reason === 'completed' ? 0 : 1
} catch (error) {
  let said = error?.message
  if (error?.timedOut) {
    said = `${base} took the connection but did not answer within ${seconds(timeoutMs)} (${error.message.split(':')[0]}): is it dsh --profile web that listens on port ${port}? (--timeout-ms changes the bound)`
  } else if (error?.cause?.code === 'ECONNREFUSED') {
    said = notListening({ waited: 0 }).replace(/^ask: /, '')
  }
  console.error(`ask: ${said}`)
  process.exitCode = 1
}

/**
 * Waits until something listens on the port: undefined then. Else, once the log shows an error (dsh stopped
 * at start) or after `timeoutMs`, what is known: `{ waited, error }`.
 */
async function untilListening() {
  const began = Date.now()
  for (let told = false; ; told = true) {
    const refused = await new Promise((resolve) => {
      const socket = connect(Number(port), '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve(false)))
      // Any other failure is the API call's to report.
      socket.once('error', (error) => resolve(error.code === 'ECONNREFUSED'))
    })
    if (!refused) return undefined
    const error = lastError()
    const waited = Date.now() - began
    if (error !== undefined || waited >= timeoutMs) return { waited, error }
    if (!told) console.error(`ask: waiting for dsh to listen on ${base} (up to ${seconds(timeoutMs)}${log ? `; its log: ${log}` : ''})`)
    await sleep(Math.min(250, timeoutMs - waited))
  }
}

/** What to say when nothing listens: where dsh's log is, and its last error line, or why there is none. */
function notListening({ waited, error = lastError() }) {
  const rounded = Math.round(waited / 100) * 100
  const lines = [`ask: nothing listens on ${base}${rounded > 0 ? ` (waited ${seconds(rounded)})` : ''}: dsh is not running there.`]
  if (log === undefined) {
    lines.push('ask: DSH_HOME is not set in this shell, so there is no log of dsh to read: run ask where dsh was started, or name its log with --log <file>.')
  } else if (!existsSync(log)) {
    lines.push(`ask: there is no log at ${log}: was dsh started, with its output there?`)
  } else if (error !== undefined) {
    lines.push(`ask: dsh's log, ${log}, ends with this error:`, `  ${shown(error)}`, 'ask: fix what it names, then start dsh again:')
  } else {
    const last = tail(log).split(/\r?\n/).findLast((l) => l.trim() !== '')
    lines.push(`ask: dsh's log, ${log}, holds no error${last === undefined ? ' (it is empty)' : `; its last line: ${shown(last.trim())}`}`)
  }
  if (error === undefined) lines.push('ask: start dsh (in a tmux pane, at the clone\'s root, with the exports of README "Try it"):')
  lines.push(`  ${start}`)
  return lines.join('\n')
}

/**
 * The log's last error line, without its indentation and `[cause]: `: a JavaScript error's first line
 * (`TypeError: …`, `Error [ERR_…]: …`, as Node prints an uncaught one and each of its causes) or an error of
 * Cordis's log (`error [name] …`, as the log row prints it). Undefined where there is no log or no error.
 */
function lastError() {
  if (log === undefined || !existsSync(log)) return undefined
  const error = /^\s*(?:\[cause\]: )?((?:[A-Z][A-Za-z]*)?Error(?: \[[A-Z0-9_]+\])?: .*|error \[[^\]]*\] .*)$/
  return tail(log).split(/\r?\n/).findLast((l) => error.test(l))?.replace(error, '$1')
}

/** A line of the log as this prints it: control characters escaped, at most 400 characters. */
function shown(line) {
  const escaped = line.replace(/\p{Cc}/gu, (c) => JSON.stringify(c).slice(1, -1))
  return escaped.length > 400 ? `${escaped.slice(0, 400)}…` : escaped
}

/** The last MiB of `file` (a dump is a few KB; a long trial's log may not be). */
function tail(file) {
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    const length = Math.min(size, 1 << 20)
    const buffer = Buffer.alloc(length)
    readSync(fd, buffer, 0, length, size - length)
    return buffer.toString('utf8')
  } finally {
    closeSync(fd)
  }
}
