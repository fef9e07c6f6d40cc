// e2e only: the plugin in a tmux pane on rc.8's own `ctx.shell` (dsh-bash-local over
// dsh-subprocess-local, their default config, as `dsh` 0.1.0-rc.8 composes them), through the turns of
// one session. Spec (JSON file, argv[2]): { config, turns, out, go }. Writes `out`: per turn the reading
// (or null), the debug lines and warnings, what the executor returned (length, truncated) and how long
// the pre-step took. With `go`, turn k waits for the file `<go>-k` (the test changes tmux in between)
// after writing `<out>.ready-k`, and its record goes to `<out>.turn-k` too.
// The suites' own executor (__test__/fixtures/sh-executor.mjs) keeps all of stdout; this one keeps
// only its last 64 KB unless a request asks for more, which is what issue 38's break-in caught.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry, { agentEvents, Inbox } from '@deepseek-ai/dsh-agent'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import Subprocess from '@deepseek-ai/dsh-subprocess-local'
import Bash from '@deepseek-ai/dsh-bash-local'

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const result = { turns: [] }
try {
  const ctx = new Context()
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(Subprocess)
  await ctx.plugin(Bash, { cwd: process.cwd() })
  const logged = []
  ctx.logger.debug = (...args) => logged.push(args.join(' '))
  ctx.logger.warn = (...args) => logged.push(`warn: ${args.join(' ')}`)
  const shell = ctx.get('shell')
  const run = shell.run.bind(shell)
  let ran
  shell.run = async (request) => {
    const r = await run(request)
    ran = { exitCode: r.exitCode, bytes: Buffer.byteLength(r.stdout.text), truncated: r.stdout.truncated }
    return r
  }
  await ctx.plugin(await import('../index.js'), spec.config ?? {})
  const session = Session.create(SessionId('executor-probe'))
  const agent = { id: session.id, options: {}, session, inbox: new Inbox(session, { inserted() {}, discarded() {}, claimed() {} }), status: 'running' }
  for (let turn = 1; turn <= (spec.turns ?? 1); turn++) {
    if (spec.go) {
      writeFileSync(`${spec.out}.ready-${turn}`, '{}')
      while (!existsSync(`${spec.go}-${turn}`)) await sleep(20)
    }
    logged.length = 0
    ran = undefined
    const started = performance.now()
    const decision = await agentEvents(ctx, agent).waterfall('agent/pre-step', { messages: [], turn, step: 1, signal: new AbortController().signal }, () =>
      Promise.resolve({ kind: 'enter', messages: [] }),
    )
    session.append('step/start', { turn, step: 1 })
    for (const message of decision.messages) session.append('user/message', message, { surfaceOp: 'append' })
    const reading = decision.messages.find((m) => m?.source?.plugin === 'tmux-context')?.content[0].text ?? null
    const record = { turn, reading, logged: [...logged], ran, durationMs: performance.now() - started }
    result.turns.push(record)
    if (spec.go) writeFileSync(`${spec.out}.turn-${turn}`, JSON.stringify(record))
  }
} catch (error) {
  result.error = String(error?.stack ?? error)
}
writeFileSync(spec.out, JSON.stringify(result))
process.exit(0)
