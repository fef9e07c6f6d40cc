// dsh's HTTP API as its browser UI calls it (the `web` profile, `dsh --profile web`): POST /api/<method>
// with a client-request envelope; `session.create` opens a session, each `session.prompt` queues a message
// (one turn), `session.history` returns the session's newest events. Node builtins only (fetch).
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * One call; returns the result's value, throws with the host's error otherwise. With `timeoutMs`, a host that
 * has not answered in full within it (one that accepts the connection and never answers, say) is an error
 * whose `timedOut` is true.
 */
export async function rpc (base, method, payload, { timeoutMs } = {}) {
  const rpcId = `rpc-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
  const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)
  try {
    const response = await fetch(`${base}/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'client-request', rpcId, method, payload }),
      signal,
    })
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status}`)
    const { result } = await response.json()
    if (!result?.ok) throw new Error(`${method}: ${JSON.stringify(result)}`)
    return result.value
  } catch (error) {
    if (signal?.aborted !== true) throw error
    throw Object.assign(new Error(`${method}: no answer from ${base} within ${timeoutMs} ms`, { cause: error }), { timedOut: true })
  }
}

const textOf = (data) => (data?.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('')

/**
 * Send one message to the session and wait for the turn it starts to end (`failed()` may return a reason
 * to stop early; `timeoutMs` bounds each call, as `rpc`'s). Returns the turn's number, the readings the plugin put in it, and the last answer.
 */
export async function promptTurn (base, sessionId, text, { deadline = Date.now() + 120_000, failed = () => undefined, timeoutMs } = {}) {
  const history = async () => (await rpc(base, 'session.history', { sessionId, maxMessages: 1000 }, { timeoutMs })).events.map((e) => e.event)
  const before = (await history()).filter((e) => e.type === 'turn/end').length
  await rpc(base, 'session.prompt', { sessionId, mode: 'queue', content: [{ type: 'text', text }] }, { timeoutMs })
  for (;;) {
    const events = await history()
    const ends = events.filter((e) => e.type === 'turn/end')
    if (ends.length > before) {
      const end = ends[before]
      const start = events.findLast((e) => e.type === 'turn/start' && e.data?.turn === end.data.turn)
      const inTurn = events.filter((e) => e.seq >= start.seq && e.seq <= end.seq)
      const isReading = (e) => e.type === 'user/message' && e.data?.source?.plugin === 'tmux-context'
      return {
        turn: end.data.turn,
        reason: end.data.reason?.kind,
        readings: inTurn.filter(isReading).map((e) => ({ seq: e.seq, text: textOf(e.data) })),
        // Whether the session holds any reading at all (of the last 1000 events): none means the row is not mounted.
        everRead: events.some(isReading),
        answer: inTurn.filter((e) => e.type === 'assistant/message').map((e) => textOf(e.data.message)).filter(Boolean).at(-1),
      }
    }
    const reason = failed()
    if (reason) throw new Error(`${reason} before the turn ended`)
    if (Date.now() > deadline) throw new Error('timed out waiting for the turn to end')
    await sleep(100)
  }
}
