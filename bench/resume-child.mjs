// One sample of row 1e, the first turn after a resume as dsh runs it: a fresh `node` process,
// copied into the bench's consumer folder (bench/import.mjs). The harness imports first and a
// real Context with the AgentRegistry and an instant ShellExecutor (run() resolves at once with
// one fixed reading line); then the resumed session (`Session.fromRestore` over a stored log of n
// ordinary events after this plugin's reading at seq 2, of the same location), untimed; then
// `await import(<package>)` and `ctx.plugin(...)`, then its first pre-step (`step: 1`), each
// timed with process.hrtime.bigint. The step must be suppressed, after one query. Prints one
// JSON line. argv[2]: 'native' | 'js'; argv[3]: n; argv[4]: the URL of bench/lib.mjs.
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry, { agentEvents } from '@deepseek-ai/dsh-agent'
import { ShellExecutor } from '@deepseek-ai/dsh-shell'

// bench/lib.mjs of the checkout (argv[4]): its harness packages are the ones this folder links.
const { agentOf, buildSession, line, runResult } = await import(process.argv[4])

const reference = process.env.BENCH_REFERENCE ? (await import('node:url')).pathToFileURL(process.env.BENCH_REFERENCE).href : 'dsh-tmux-context-js'
const specifier = { native: '@deepseek-ai/dsh-tmux-context', js: reference }[process.argv[2]]
const n = Number(process.argv[3])
if (!specifier || !Number.isSafeInteger(n)) throw new Error('usage: resume-child.mjs native|js <n>')
// The executor's answer, and the reading both packages write for it (so the step is suppressed).
const RESULT = runResult(line() + '\n')
const text = 'tmux location (turn 1):\nsession main, window 1 "editor", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3'
const reading = { content: [{ type: 'text', text }], source: { kind: 'plugin', plugin: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text }] }, role: 'user', id: 'resumed-reading' }
let ran = 0
class Instant extends ShellExecutor {
  resolve(request) {
    return { ...request, workdir: process.cwd(), timeoutMs: request.timeoutMs ?? 30_000, stdoutMaxBytes: 1 << 20, sandboxPolicy: undefined }
  }
  run() {
    ran += 1
    return Promise.resolve(RESULT)
  }
}
const ctx = new Context()
await ctx.plugin(AgentRegistry)
await ctx.plugin(Instant)
const agent = agentOf(buildSession('resumed', reading, n))
const t0 = process.hrtime.bigint()
await ctx.plugin(await import(specifier), {})
const t1 = process.hrtime.bigint()
const base = { kind: 'enter', messages: [] }
const payload = { messages: [], turn: 2, step: 1, signal: new AbortController().signal }
const decision = await agentEvents(ctx, agent).waterfall('agent/pre-step', payload, () => Promise.resolve(base))
const t2 = process.hrtime.bigint()
if (decision !== base || ran !== 1) throw new Error(`${process.argv[2]}: the first step after the resume was not suppressed after one query`)
console.log(JSON.stringify({ mountMs: Number(t1 - t0) / 1e6, stepMs: Number(t2 - t1) / 1e6 }))
process.exit(0)
