// Reading a persisted dsh session (`$DSH_HOME/sessions/<cwd-slug>/<session-id>/session.jsonl[.zstd]`),
// finding the tmux-context readings in it, and the checks both scenarios make of one turn's reading.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

export const PLUGIN_NAME = 'tmux-context'

/** Locate `<root>/<cwd-slug>/<sessionId>/session.jsonl[.zstd]`. */
export function findSessionLog (root, sessionId) {
  if (!existsSync(root) || !sessionId) return undefined
  for (const slug of readdirSync(root)) {
    for (const name of ['session.jsonl', 'session.jsonl.zstd']) {
      const p = join(root, slug, sessionId, name)
      if (existsSync(p)) return p
    }
  }
  return undefined
}

/**
 * Decompress a log of several zstd frames (dsh appends one per flush). Not node:zlib: its
 * zstdDecompressSync and createZstdDecompress (Node 22.23) stop after the first frame.
 */
function unzstd (path) {
  try {
    return execFileSync('zstd', ['-dc', path], { encoding: 'utf8', maxBuffer: 256 << 20 })
  } catch (error) {
    throw new Error(`cannot read ${path} with \`zstd -dc\` (apt-get install zstd): ${error.message}`)
  }
}

/** Read a session log (plain, or zstd frames as dsh writes it by default); returns the events (lines with a `seq`). */
export function readSessionLog (path) {
  let text
  if (path.endsWith('.zstd')) {
    text = unzstd(path)
  } else {
    text = readFileSync(path, 'utf8')
  }
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)).filter((e) => typeof e.seq === 'number')
}

const isReading = (e) => e.type === 'user/message' && e.data?.source?.kind === 'plugin' && e.data.source.plugin === PLUGIN_NAME
const isUserOwn = (e) => e.type === 'user/message' && e.data?.source?.kind === 'user'
const textOf = (e) => (e.data?.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('')

/** Split the log into turns (turn/start .. turn/end) and describe each. */
export function analyzeTurns (events, expectedTurns) {
  const out = []
  for (let turn = 1; turn <= expectedTurns; turn++) {
    const start = events.findIndex((e) => e.type === 'turn/start' && e.data?.turn === turn)
    const endRel = start < 0 ? -1 : events.slice(start).findIndex((e) => e.type === 'turn/end' && e.data?.turn === turn)
    const end = endRel < 0 ? events.length : start + endRel
    const slice = start < 0 ? [] : events.slice(start, end + 1)
    const endEvent = endRel < 0 ? undefined : events[end]
    const readings = slice.filter(isReading)
    const stepStart = slice.findIndex((e) => e.type === 'step/start')
    const firstUserMessageAfterStep = stepStart < 0 ? -1 : slice.findIndex((e, i) => i > stepStart && e.type === 'user/message')
    const firstReading = slice.findIndex(isReading)
    const userOwn = slice.findIndex(isUserOwn)
    out.push({
      turn,
      completed: endEvent?.data?.reason?.kind === 'completed',
      endReason: endEvent?.data?.reason?.kind,
      readings: readings.map(textOf),
      readingSources: readings.map((e) => e.data.source),
      readingSurfaceOps: readings.map((e) => e.surfaceOp),
      // null when the turn has no reading: the ordering questions do not apply.
      readingIndexAfterStepStart: readings.length === 0 ? null : firstReading === firstUserMessageAfterStep && firstReading > stepStart,
      readingBeforeUserMessage: readings.length === 0 ? null : userOwn >= 0 && firstReading < userOwn,
      userMessage: userOwn >= 0 ? textOf(slice[userOwn]) : undefined,
      seqs: { turnStart: slice[0]?.seq, stepStart: slice[stepStart]?.seq, reading: slice[firstReading]?.seq, userMessage: slice[userOwn]?.seq, turnEnd: endEvent?.seq },
    })
  }
  return out
}

/**
 * The checks of one turn, from its log entry (`analyzeTurns`) and, where given, the readings in the
 * request the model got for it (`readingsInRequest` of that request, and the index of the user's own
 * message there).
 * @param {(name: string, pass: unknown, detail?: unknown) => void} check
 * @param {string} label - e.g. `task 1` or `turn 3`.
 * @param {object} t - the turn, from analyzeTurns.
 * @param {string|undefined} expected - the full reading the pane state calls for, or undefined when none is due.
 * @param {{ readings: {index: number, text: string}[], userIndex: number }} [request]
 */
export function turnChecks (check, label, t, expected, request) {
  check(`${label}: turn completed`, t?.completed, t?.endReason)
  if (expected === undefined) {
    check(`${label}: no reading in the log (tmux state unchanged)`, t?.readings.length === 0, t?.readings)
    if (request) check(`${label}: no reading of this turn in the model request`, !request.readings.some((r) => r.text.startsWith(`tmux location (turn ${t?.turn}):`)), request.readings)
    return
  }
  check(`${label}: exactly one reading in the log`, t?.readings.length === 1, t?.readings.length)
  check(`${label}: the logged reading equals the pane state, byte for byte`, t?.readings[0] === expected, { want: expected, got: t?.readings[0] })
  const src = t?.readingSources[0]
  check(`${label}: reading source {kind: plugin, plugin: tmux-context, form: snapshot}`, src?.kind === 'plugin' && src.plugin === PLUGIN_NAME && src.form === 'snapshot' &&
    Array.isArray(src.sections) && src.sections[0]?.name === PLUGIN_NAME && src.sections[0]?.text === t.readings[0], src)
  check(`${label}: reading appended (surfaceOp append)`, t?.readingSurfaceOps[0] === 'append', t?.readingSurfaceOps[0])
  check(`${label}: reading is the first user/message after step/start`, t?.readingIndexAfterStepStart === true)
  check(`${label}: reading precedes the user's own message`, t?.readingBeforeUserMessage === true)
  if (request) {
    const mine = request.readings.filter((r) => r.text === expected)
    check(`${label}: the model request carries the reading, byte for byte`, mine.length === 1, request.readings.map((r) => r.text))
    check(`${label}: in the request, the reading comes before the user's message`, mine.length === 1 && request.userIndex >= 0 && mine[0].index < request.userIndex,
      { reading: mine[0]?.index, user: request.userIndex })
  }
}
