// A local stand-in for the DeepSeek API on 127.0.0.1: `POST /chat/completions` answered with an
// OpenAI-style SSE stream ending in `data: [DONE]`, which is what dsh's DeepSeek adapter reads
// (`DEEPSEEK_BASE_URL`, `DEEPSEEK_API_KEY`). It keeps every request it got, so a scenario can show the
// messages the model received. The answer names the tmux location the request carried, if any.
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

/** The session-title request dsh sends beside the turn's own request (no tools, its own system prompt). */
export function isTitleRequest (body) {
  return !body?.tools && /session title|title for/i.test(messageText(body?.messages?.[0]))
}

function answerFor (body) {
  if (isTitleRequest(body)) return 'tmux location check'
  const readings = readingsInRequest(body)
  const last = readings.at(-1)?.text.split('\n')[1]
  return last ? `You are in tmux: ${last}.` : 'No tmux location was given to me.'
}

/**
 * Start the endpoint on an ephemeral port of 127.0.0.1.
 * @returns {Promise<{ url: string, requests: object[], close: () => Promise<void> }>} `requests` grows
 *   as requests arrive: `{ n, path, sessionId, title, body, error? }` (`sessionId` from dsh's
 *   `x-deepseek-harness-session-id` header).
 */
export function startModelServer () {
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
      record.title = isTitleRequest(record.body)
      const text = answerFor(record.body)
      const event = (delta, finish, usage) => `data: ${JSON.stringify({
        id: `mock-${record.n}`, object: 'chat.completion.chunk', created: 0, model: record.body.model,
        choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}),
      })}\n\n`
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.write(event({ role: 'assistant', content: text }, null))
      res.write(event({}, 'stop', { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 }))
      res.end('data: [DONE]\n\n')
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()) }),
      })
    })
  })
}
