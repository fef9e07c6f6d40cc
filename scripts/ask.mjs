// `npm run ask -- [--port 8765] [--new] "<message>"`: one turn in a session of a running
// `dsh --profile web` (README "Try it"), through the HTTP API its browser UI uses (e2e/lib/web-api.mjs).
// The first call (or --new) opens a session and keeps its id in .tmp/ask-<port>.json; each call sends
// one message, waits for the turn to end, and prints whether the plugin gave the model a reading in
// that turn (its text) or none, then the model's answer.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { promptTurn, rpc } from '../e2e/lib/web-api.mjs'

const { values, positionals } = parseArgs({ allowPositionals: true, options: { port: { type: 'string', default: '8765' }, new: { type: 'boolean', default: false } } })
const text = positionals.join(' ').trim()
if (text === '') {
  console.error('usage: npm run ask -- [--port 8765] [--new] "<message>"   (with `dsh --profile web --no-open --port 8765` running)')
  process.exit(2)
}
const base = `http://127.0.0.1:${values.port}`
const store = join(dirname(dirname(fileURLToPath(import.meta.url))), '.tmp', `ask-${values.port}.json`)
try {
  let sessionId = !values.new && existsSync(store) ? JSON.parse(readFileSync(store, 'utf8')).sessionId : undefined
  const open = async (why) => {
    const id = (await rpc(base, 'session.create', { cwd: process.cwd() })).sessionId
    mkdirSync(dirname(store), { recursive: true })
    writeFileSync(store, JSON.stringify({ sessionId: id }) + '\n')
    console.log(`new session ${id}${why}`)
    return id
  }
  sessionId ??= await open('')
  let t
  try {
    t = await promptTurn(base, sessionId, text)
  } catch (error) {
    // The kept session is not this dsh's (a new DSH_HOME, say): open one, as `--new` would.
    if (!String(error?.message).includes('session-not-found')) throw error
    sessionId = await open(` (the session kept in ${store} is not this dsh's: a new DSH_HOME?)`)
    t = await promptTurn(base, sessionId, text)
  }
  if (t.readings.length === 0 && !t.everRead) {
    console.log(`turn ${t.turn}: no reading, and none in this session at all: is the tmux-context row mounted (the profile's cordis.patch.yml, then restart dsh), and does dsh run in a tmux pane?`)
  } else if (t.readings.length === 0) {
    console.log(`turn ${t.turn}: no reading (nothing tmux-context tells changed since the session's last reading)`)
  }
  for (const r of t.readings) console.log(`turn ${t.turn}: the model received this reading (seq ${r.seq}):\n${r.text.replace(/^/gm, '  | ')}`)
  console.log(`the model answered: ${t.answer ?? '(nothing)'}`)
  process.exitCode = t.reason === 'completed' ? 0 : 1
} catch (error) {
  const cause = error?.cause?.code === 'ECONNREFUSED' ? `nothing listens on ${base}: start \`dsh --profile web --no-open --port ${values.port}\` first` : error.message
  console.error(`ask: ${cause}`)
  process.exitCode = 1
}
