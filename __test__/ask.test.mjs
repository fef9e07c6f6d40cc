// `npm run ask` (scripts/ask.mjs), README "Try it"'s client of dsh's web API: every wait is bounded (a port
// that takes the connection and never answers; a port where nothing listens), and where dsh is not
// listening it names dsh's log and prints the log's last error line (a value the plugin rejected stops dsh
// at start, and says why only there). Each case runs the script as the user does, with a short bound
// (--timeout-ms) in place of its 10 s; what ends each wait is the bound or the answer, never a sleep here.
import { afterEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const cleanups = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A scratch folder, removed after the test. */
function scratch() {
  const dir = mkdtempSync(join(tmpdir(), 'dshtc-ask-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** A port of 127.0.0.1 where nothing listens (one just closed). */
async function freePort() {
  const server = createTcpServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** `server` listening on `port` (0: any) of 127.0.0.1, closed after the test; its port. */
async function listen(server, port = 0) {
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  cleanups.push(() => new Promise((resolve) => (server.closeAllConnections?.(), server.close(() => resolve()))))
  return server.address().port
}

/**
 * `node scripts/ask.mjs ...args` at the clone's root, with `env` over an environment without DSH_HOME;
 * `onStderr(text, child)` sees stderr as it comes. Resolves with its exit code and output once it exits.
 */
function ask(args, { env = {}, onStderr } = {}) {
  const { DSH_HOME: _, ...inherited } = process.env
  const child = spawn(process.execPath, ['scripts/ask.mjs', ...args], { cwd: root, env: { ...inherited, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => {
    stderr += d
    onStderr?.(stderr, child)
  })
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })))
}

/** The session file ask keeps for `port`, removed after the test. */
const forgetSession = (port) => cleanups.push(() => rmSync(join(root, '.tmp', `ask-${port}.json`), { force: true }))

// The end of a real web.log (dsh 0.1.0-rc.8, the trial's log row mounted) after `refreshIntervalMs: -1`:
// the log row's line, then Node's dump of the uncaught error and its causes (stack lines trimmed).
const TYPE_ERROR = "TypeError: tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1 (change it under config: of the tmux-context row in your profile's cordis.patch.yml, or cordis.yml)"
const REJECTED_LOG = `error [tmux-context] ${TYPE_ERROR}
    at bad (file:///home/you/.dsh/profiles/web/node_modules/@deepseek-ai/dsh-tmux-context/index.js:162:39)
file:///home/you/dsh/node_modules/@deepseek-ai/dsh-app-boot/lib/index.js:1187
		throw new Error(\`\${binName}: \${stage}: \${detail}\${stack}\`, { cause });
		      ^

Error: dsh: plugin tree failed to load: failed to apply loader entry include (cordis:include): failed to apply loader entry tmux-context (@deepseek-ai/dsh-tmux-context): tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1
${TYPE_ERROR}
    at bad (file:///home/you/.dsh/profiles/web/node_modules/@deepseek-ai/dsh-tmux-context/index.js:162:39)
    at async file:///home/you/dsh/node_modules/@deepseek-ai/dsh/lib/bin.js:133:3 {
  [cause]: Error: failed to apply loader entry include (cordis:include): failed to apply loader entry tmux-context (@deepseek-ai/dsh-tmux-context): tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1
      at updateError (file:///home/you/dsh/node_modules/@deepseek-ai/cordis-plugin-loader/lib/index.js:299:9) {
    [cause]: Error: failed to apply loader entry tmux-context (@deepseek-ai/dsh-tmux-context): tmux-context: refreshIntervalMs must be a non-negative safe integer, got -1
        at updateError (file:///home/you/dsh/node_modules/@deepseek-ai/cordis-plugin-loader/lib/index.js:299:9) {
      [cause]: ${TYPE_ERROR}
          at bad (file:///home/you/.dsh/profiles/web/node_modules/@deepseek-ai/dsh-tmux-context/index.js:162:39)
    }
  }
}

Node.js v22.23.3
`

describe('npm run ask: bounded waits', () => {
  it('a port that takes the connection and never answers: ask stops after its bound and says so', async () => {
    const sockets = []
    const silent = createTcpServer((socket) => sockets.push(socket))
    const port = await listen(silent)
    // Before the server's close, which waits for them (cleanups run last first).
    cleanups.push(() => sockets.forEach((s) => s.destroy()))
    forgetSession(port)
    const run = await ask(['--port', String(port), '--new', '--timeout-ms', '300', 'Where am I in tmux?'])
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(`ask: http://127.0.0.1:${port} took the connection but did not answer within 0.3 s (session.create): is it dsh --profile web that listens on port ${port}? (--timeout-ms changes the bound)`)
    expect(sockets.length).toBeGreaterThan(0)
  })

  it('nothing listens and the log has no error: ask waits its bound for dsh to start, then names the log and its last line', async () => {
    const home = scratch()
    writeFileSync(join(home, 'web.log'), 'dsh web: http://127.0.0.1:8765\ninfo [hmr] watching []\n')
    const port = await freePort()
    const run = await ask(['--port', String(port), '--timeout-ms', '300', 'hi'], { env: { DSH_HOME: home } })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(`ask: waiting for dsh to listen on http://127.0.0.1:${port} (up to 0.3 s; its log: ${join(home, 'web.log')})`)
    expect(run.stderr).toMatch(new RegExp(`ask: nothing listens on http://127\\.0\\.0\\.1:${port} \\(waited 0\\.\\d s\\): dsh is not running there\\.`))
    expect(run.stderr).toContain(`ask: dsh's log, ${join(home, 'web.log')}, holds no error; its last line: info [hmr] watching []`)
    expect(run.stderr).toContain(`  dsh --profile web --no-open --port ${port} > "$DSH_HOME/web.log" 2>&1 < /dev/null &`)
  })

  it('nothing listens, no DSH_HOME, no --log: ask says it has no log to read and how to name one', async () => {
    const port = await freePort()
    const run = await ask(['--port', String(port), '--timeout-ms', '200', 'hi'])
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('ask: DSH_HOME is not set in this shell, so there is no log of dsh to read: run ask where dsh was started, or name its log with --log <file>.')
  })
})

describe('npm run ask: where dsh is not listening, its log says why', () => {
  it('a value the plugin rejected stopped dsh: ask names the log and prints its last error line, the TypeError, at once', async () => {
    const home = scratch()
    writeFileSync(join(home, 'web.log'), REJECTED_LOG)
    const port = await freePort()
    // A bound no test waits out: the error in the log ends the wait.
    const run = await ask(['--port', String(port), '--timeout-ms', '600000', 'hi'], { env: { DSH_HOME: home } })
    expect(run.status).toBe(1)
    expect(run.stderr.split('\n')).toEqual([
      `ask: nothing listens on http://127.0.0.1:${port}: dsh is not running there.`,
      `ask: dsh's log, ${join(home, 'web.log')}, ends with this error:`,
      `  ${TYPE_ERROR}`,
      'ask: fix what it names, then start dsh again:',
      `  dsh --profile web --no-open --port ${port} > "$DSH_HOME/web.log" 2>&1 < /dev/null &`,
      '',
    ])
  })

  it('--log names another file; an error line holding control characters is printed escaped', async () => {
    const log = join(scratch(), 'dsh.txt')
    writeFileSync(log, 'dsh web: http://127.0.0.1:8765\nError: listen EADDRINUSE: address already in use \u001b[31m127.0.0.1:8765\n    at Server.setupListenHandle\n')
    const port = await freePort()
    const run = await ask(['--port', String(port), '--log', log, '--timeout-ms', '600000', 'hi'], { env: { DSH_HOME: '/nowhere' } })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(`ask: dsh's log, ${log}, ends with this error:\n  Error: listen EADDRINUSE: address already in use \\u001b[31m127.0.0.1:8765\n`)
    expect(run.stderr).not.toContain('\u001b')
  })

  it('dsh starts listening while ask waits: the turn runs, and the plugin warnings in the log are shown after it', async () => {
    const home = scratch()
    const warning = 'warn [tmux-context] tmux-context: unknown config key pane (did you mean panes?) ignored; the known keys are refreshIntervalMs, queryTimeoutMs, panes (change it under config: …)'
    writeFileSync(join(home, 'web.log'), `${warning}\ndsh web: http://127.0.0.1:8765\n`)
    const port = await freePort()
    forgetSession(port)
    // A stand-in for dsh's web API: one session, one turn with one reading.
    const events = []
    const answer = (res, value) => res.end(JSON.stringify({ result: { ok: true, value } }))
    const dsh = createServer((req, res) => {
      let body = ''
      req.on('data', (d) => (body += d))
      req.on('end', () => {
        const method = req.url.replace('/api/', '')
        if (method === 'session.create') return answer(res, { sessionId: 'session-1' })
        if (method === 'session.prompt') {
          const text = 'tmux location (turn 1):\nsession main, window 1 "editor", pane 0 %3'
          events.push(
            { seq: 1, type: 'turn/start', data: { turn: 1 } },
            { seq: 2, type: 'user/message', data: { source: { kind: 'plugin', plugin: 'tmux-context' }, content: [{ type: 'text', text }] } },
            { seq: 3, type: 'assistant/message', data: { message: { content: [{ type: 'text', text: 'You are in tmux.' }] } } },
            { seq: 4, type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } },
          )
          return answer(res, {})
        }
        if (method === 'session.history') return answer(res, { events: events.map((event) => ({ event })) })
        res.statusCode = 404
        res.end()
      })
    })
    let started
    const run = await ask(['--port', String(port), '--new', '--timeout-ms', '600000', 'Where am I in tmux?'], {
      env: { DSH_HOME: home },
      onStderr: (stderr) => {
        if (started === undefined && stderr.includes('ask: waiting for dsh to listen')) started = listen(dsh, port)
      },
    })
    expect(started, run.stderr).toBeDefined()
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout.split('\n')).toEqual([
      'new session session-1',
      'turn 1: the model received this reading (seq 2):',
      '  | tmux location (turn 1):',
      '  | session main, window 1 "editor", pane 0 %3',
      'the model answered: You are in tmux.',
      `dsh's log, ${join(home, 'web.log')}, holds a warning of tmux-context:`,
      `  ${warning}`,
      '',
    ])
  })
})

describe('npm run model: its address for the trial', () => {
  it('writes the export line it prints to the env file the trial sources, and removes it when stopped', async () => {
    const env = join(scratch(), 'model.env')
    const child = spawn(process.execPath, ['scripts/model.mjs', '--address-file', env], { cwd: root })
    let stdout = ''
    const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)))
    cleanups.push(() => child.kill('SIGKILL'))
    await new Promise((resolve) => child.stdout.on('data', (d) => ((stdout += d), stdout.includes('Ctrl-C stops it.') && resolve())))
    const line = stdout.split('\n').find((l) => l.trim().startsWith('export DEEPSEEK_BASE_URL=')).trim()
    expect(line).toMatch(/^export DEEPSEEK_BASE_URL=http:\/\/127\.0\.0\.1:\d+ DEEPSEEK_API_KEY=sk-local DSH_TELEMETRY_DISABLED=1$/)
    expect(readFileSync(env, 'utf8')).toBe(`${line}\n`)
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    expect(existsSync(env)).toBe(false)
  })
})
