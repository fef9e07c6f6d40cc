// Shared pieces of the benchmark: statistics, formatting, machine facts, and the synthetic session
// (a real `Session` restored from valid events: one reading near the start, then n ordinary events).
import { readFileSync, statSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { Inbox } from '@deepseek-ai/dsh-agent'
import { execFileSync } from 'node:child_process'
import os from 'node:os'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { resolve as resolvePath } from 'node:path'
import { Session, SessionId } from '@deepseek-ai/dsh-session'

export { line, runResult } from '../__test__/answers.mjs'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const NODE_FILE = 'dsh-tmux-context.linux-x64-gnu.node'

/**
 * What the second column measures: the JS package (`dsh-tmux-context-js`), or with
 * `BENCH_REFERENCE=<path to an index.js>` another build of this package (scripts/bench-baseline.sh
 * builds an earlier commit there, so a change is measured against the build before it in one run).
 */
export const REFERENCE = process.env.BENCH_REFERENCE ? pathToFileURL(resolvePath(process.env.BENCH_REFERENCE)).href : 'dsh-tmux-context-js'
export const REFERENCE_LABEL = process.env.BENCH_REFERENCE ? `baseline (${process.env.BENCH_REFERENCE_LABEL ?? process.env.BENCH_REFERENCE})` : 'JS 0.1.0-rc.8'

/** Median of a list of numbers (mean of the middle two for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** The q-quantile (0..1) by nearest rank. */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]
}

export function summary(xs) {
  return { n: xs.length, median: median(xs), p10: quantile(xs, 0.1), p90: quantile(xs, 0.9), min: Math.min(...xs) }
}

/** A duration in ms, shown in µs below 1 ms. */
export function fmtMs(ms) {
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.1 ? 2 : 1)} µs`
  if (ms < 100) return `${ms.toFixed(2)} ms`
  return `${ms.toFixed(0)} ms`
}

export function fmtBytes(bytes) {
  const sign = bytes < 0 ? '−' : ''
  const b = Math.abs(bytes)
  if (b >= 1 << 20) return `${sign}${(b / (1 << 20)).toFixed(2)} MiB`
  if (b >= 1 << 10) return `${sign}${(b / (1 << 10)).toFixed(1)} KiB`
  return `${sign}${b} B`
}

export const fmtInt = (n) => n.toLocaleString('en-US').replaceAll(',', ' ')

/** Full GC, twice (the second sweeps what the first finalised). Needs `node --expose-gc`. */
export function fullGc() {
  if (typeof globalThis.gc !== 'function') throw new Error('run node with --expose-gc')
  globalThis.gc()
  globalThis.gc()
}

/** Facts about the machine and the build that produced these numbers. */
export function machineFacts() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown'
  const processors = (cpuinfo.match(/^processor\s*:/gm) ?? []).length
  const facts = {
    date: new Date().toISOString(),
    cpu: model,
    cores: processors || os.cpus().length,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
  }
  const run = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch {
      return undefined
    }
  }
  facts.tmux = run('tmux', ['-V']) ?? 'not installed'
  facts.sh = run('readlink', ['-f', '/bin/sh']) ?? '/bin/sh'
  const head = run('git', ['rev-parse', '--short', 'HEAD'])
  const dirty = run('git', ['status', '--porcelain', '--', 'src', 'Cargo.toml', 'Cargo.lock', 'index.js'])
  facts.commit = head ? `${head}${dirty ? ' (src/ has uncommitted changes)' : ''}` : 'unknown'
  const node = `${root}${NODE_FILE}`
  const bytes = readFileSync(node)
  facts.addon = {
    file: NODE_FILE,
    size: statSync(node).size,
    sha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
    built: statSync(node).mtime.toISOString(),
  }
  return facts
}

// --- The synthetic session -------------------------------------------------------------------------

/**
 * The i-th ordinary event (type, data, surfaceOp) of a repeating, loop-like cycle: turn boundaries,
 * step starts, user messages, chunks, assistant messages, tool results, and another plugin's
 * user message. None of them is a reading of this plugin.
 */
export function ordinaryEvent(i) {
  const id = `bench-${i}`
  switch (i % 8) {
    case 0:
      return { type: 'turn/start', data: { turn: i } }
    case 1:
      return { type: 'user/message', surfaceOp: 'append', data: { content: [{ type: 'text', text: `question ${i}` }], source: { kind: 'user' }, role: 'user', id } }
    case 2:
      return { type: 'step/start', data: { turn: i, step: 1 } }
    case 3:
      return { type: 'assistant/chunk', data: { text: `partial ${i}` } }
    case 4:
      return {
        type: 'assistant/message',
        surfaceOp: 'append',
        data: { message: { content: [{ type: 'text', text: `answer ${i}` }], source: { kind: 'model', provider: 'mock', model: 'mock' }, role: 'assistant', id } },
      }
    case 5:
      return {
        type: 'tool/result',
        surfaceOp: 'append',
        data: {
          message: {
            content: [{ type: 'tool-result', toolCallId: `call-${i}`, content: [{ type: 'text', text: 'ok' }] }],
            source: { kind: 'tool', callId: `call-${i}` },
            role: 'user',
            id,
          },
        },
      }
    case 6:
      return {
        type: 'user/message',
        surfaceOp: 'append',
        data: { content: [{ type: 'text', text: `other context ${i}` }], source: { kind: 'plugin', plugin: 'other-context', form: 'snapshot' }, role: 'user', id },
      }
    default:
      return { type: 'turn/end', data: { turn: i, reason: 'completed' } }
  }
}

/**
 * A real Session of `3 + n` events (`reading` null: no reading at all) (plus the `session/end-seed` marker the constructor adds):
 * `turn/start`, `step/start`, the plugin's `reading` message as `user/message` at seq 2, then `n`
 * ordinary events. Built through `Session.fromRestore`, the resumed-session path: every event's
 * envelope, message shape, seq contiguity and surface metadata are validated as on a load, but
 * without the per-event JSON snapshot copy of `append`/`create` (≈20 µs per event here, which
 * would make a 1 000 000-event session take ~20 s per implementation; the restore path takes ~2 s).
 */
export function buildSession(id, reading, n, time = Date.now() - 60_000) {
  return Session.fromRestore(SessionId(id), buildEvents(reading, n, time), { version: 0, id, createdAt: time })
}

/** The events of buildSession, as a fresh array (a store's `create(id, { seed })` takes them too). */
export function buildEvents(reading, n, time = Date.now() - 60_000) {
  const events = []
  const push = (e) => events.push({ type: e.type, seq: events.length, time, data: e.data, ...(e.surfaceOp ? { surfaceOp: e.surfaceOp } : {}) })
  push({ type: 'turn/start', data: { turn: 1 } })
  push({ type: 'step/start', data: { turn: 1, step: 1 } })
  // A fresh copy: fromRestore takes ownership and freezes what it is given. Without a reading
  // (`null`), another plugin's message stands at seq 2: a session the plugin never read into.
  if (reading) push({ type: 'user/message', surfaceOp: 'append', data: JSON.parse(JSON.stringify(reading)) })
  else push(ordinaryEvent(6))
  for (let i = 0; i < n; i++) push(ordinaryEvent(i))
  return events
}

/** A live agent over `session`, as the loop holds one (its inbox does nothing). */
export const agentOf = (session) => ({
  id: session.id,
  options: { provider: 'mock', model: 'mock' },
  session,
  inbox: new Inbox(session, { inserted() {}, discarded() {}, claimed() {} }),
  status: 'running',
})

/** Appends the next ordinary event through the public `append`, as the loop does. */
export function appendOrdinary(session, i) {
  const e = ordinaryEvent(i)
  if (e.surfaceOp) session.append(e.type, e.data, { surfaceOp: e.surfaceOp })
  else session.append(e.type, e.data)
}
