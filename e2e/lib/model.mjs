// A local stand-in for the DeepSeek API on 127.0.0.1: `POST /chat/completions` answered with an
// OpenAI-style SSE stream ending in `data: [DONE]`, which is what dsh's DeepSeek adapter reads
// (`DEEPSEEK_BASE_URL`, `DEEPSEEK_API_KEY`). It keeps every request it got, so a scenario can show the
// messages the model received. The answer names the tmux location the request carried, if any; for the
// compaction scenarios it can be padded (to fill a small context window), answer dsh-compaction-basic's
// summarization request with a short summary, and open one turn with a `bash` tool call.
import { createServer } from 'node:http'

const READING = /^tmux location \(turn \d+\):\n/

/** The text of a chat-completions message (`content` is a string or an array of parts). */
export function messageText (message) {
  const c = message?.content
  if (typeof c === 'string') return c
  return Array.isArray(c) ? c.map((p) => (typeof p === 'string' ? p : p?.text ?? '')).join('') : ''
}

/** Every tmux-context reading among a request's messages, with its position. */
export function readingsInRequest (body) {
  const out = []
  for (const [index, m] of (body?.messages ?? []).entries()) {
    const text = messageText(m)
    if (m.role === 'user' && READING.test(text)) out.push({ index, text })
  }
  return out
}

/**
 * The readings a request brought in front of its newest messages: those after its last assistant
 * message (a turn's first step). An earlier turn's reading stays in the conversation and is not new.
 */
export function newReadingsInRequest (body) {
  const messages = body?.messages ?? []
  const lastAssistant = messages.findLastIndex((m) => m.role === 'assistant')
  return readingsInRequest(body).filter((r) => r.index > lastAssistant)
}

/** The session-title request dsh sends beside the turn's own request (no tools, its own system prompt). */
export function isTitleRequest (body) {
  return !body?.tools && /session title|title for/i.test(messageText(body?.messages?.[0]))
}

/** dsh-compaction-basic's summarization request: the conversation, then its directive as the last user message. */
export function isSummaryRequest (body) {
  const last = body?.messages?.at(-1)
  return last?.role === 'user' && messageText(last).startsWith('You are now acting as a compaction engine')
}

/** The turn whose task is the request's newest user task (`e2e turn K: ...`), or undefined. */
export function taskTurn (body) {
  const tasks = (body?.messages ?? []).filter((m) => m.role === 'user').map((m) => /^e2e turn (\d+):/.exec(messageText(m))).filter(Boolean)
  return tasks.length === 0 ? undefined : Number(tasks.at(-1)[1])
}

/** Filler that makes an answer `chars` long, so a few turns fill a small context window. */
const padding = (chars) => (chars > 0 ? '\n\n' + 'Padding line of the local model endpoint. '.repeat(Math.ceil(chars / 43)).slice(0, chars) : '')

/**
 * What the endpoint answers: a title, a short summary for a compaction, a `bash` call of `true` as the
 * first step of the turn `toolTurn`, else the location the request carried (padded to `replyChars`).
 */
function answerFor (body, { replyChars = 0, toolTurn } = {}) {
  if (isTitleRequest(body)) return { kind: 'title', text: 'tmux location check' }
  if (isSummaryRequest(body)) {
    return { kind: 'summary', text: '## Primary Request and Intent\n- The user asks where the agent runs in tmux.\n\n## Current Work\n- Answering it.' }
  }
  const readings = readingsInRequest(body)
  const last = readings.at(-1)?.text.split('\n')[1]
  const text = (last ? `You are in tmux: ${last}.` : 'No tmux location was given to me.') + padding(replyChars)
  if (toolTurn !== undefined && taskTurn(body) === toolTurn && body.messages.at(-1)?.role === 'user') {
    return { kind: 'tool-call', text, toolCall: { name: 'bash', arguments: JSON.stringify({ command: 'true', description: 'Run true' }) } }
  }
  return { kind: 'answer', text }
}

/**
 * Start the endpoint on an ephemeral port of 127.0.0.1.
 * @param {object} [opts]
 * @param {number} [opts.replyChars=0] - pad every conversation answer to about this many more characters.
 * @param {number} [opts.toolTurn] - in this turn, answer the first request with a `bash` call of `true`.
 * @param {number} [opts.port=0] - the port on 127.0.0.1 (0: any free one).
 * @returns {Promise<{ url: string, requests: object[], close: () => Promise<void> }>} `requests` grows
 *   as requests arrive: `{ n, path, sessionId, title, body, error? }` (`sessionId` from dsh's
 *   `x-deepseek-harness-session-id` header).
 */
export function startModelServer (opts = {}) {
  const requests = []
  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const record = { n: requests.length + 1, path: req.url, sessionId: req.headers['x-deepseek-harness-session-id'] }
      requests.push(record)
      try {
        record.body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch (error) {
        record.error = `unreadable body: ${error.message}`
      }
      if (req.method !== 'POST' || req.url !== '/chat/completions' || record.body === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }))
        return
      }
      const answer = answerFor(record.body, opts)
      Object.assign(record, { title: answer.kind === 'title', kind: answer.kind })
      const text = answer.text
      const event = (delta, finish, usage) => `data: ${JSON.stringify({
        id: `mock-${record.n}`, object: 'chat.completion.chunk', created: 0, model: record.body.model,
        choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}),
      })}\n\n`
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      const call = answer.toolCall && [{ index: 0, id: `call-${record.n}`, type: 'function', function: answer.toolCall }]
      res.write(event({ role: 'assistant', content: text, ...(call ? { tool_calls: call } : {}) }, null))
      res.write(event({}, call ? 'tool_calls' : 'stop', { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 }))
      res.end('data: [DONE]\n\n')
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      const { port } = server.address()
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()) }),
      })
    })
  })
}
