// One sample of row 3, in a fresh `node --expose-gc` process: the harness imports first (Cordis,
// the agent registry, session and shell packages) and a real Context with the AgentRegistry, then
// the baseline RSS (after a full GC), then `await import(<package>)` and `apply(ctx, {})` timed
// with process.hrtime.bigint, then the RSS again (after a full GC). Prints one JSON line.
// argv[2]: 'native' | 'js'.
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import '@deepseek-ai/dsh-session'
import '@deepseek-ai/dsh-shell'

// 'js': the JS package, or the baseline build named by BENCH_REFERENCE (see bench/lib.mjs).
const reference = process.env.BENCH_REFERENCE ? (await import('node:url')).pathToFileURL(process.env.BENCH_REFERENCE).href : 'dsh-tmux-context-js'
const specifier = { native: '@deepseek-ai/dsh-tmux-context', js: reference }[process.argv[2]]
if (!specifier) throw new Error('usage: import-child.mjs native|js')
const ctx = new Context()
await ctx.plugin(AgentRegistry)
const settle = () => {
  globalThis.gc()
  globalThis.gc()
}
settle()
const m0 = process.memoryUsage()
const t0 = process.hrtime.bigint()
const plugin = await import(specifier)
const t1 = process.hrtime.bigint()
plugin.apply(ctx, {})
const t2 = process.hrtime.bigint()
settle()
const m1 = process.memoryUsage()
console.log(JSON.stringify({ importMs: Number(t1 - t0) / 1e6, applyMs: Number(t2 - t1) / 1e6, totalMs: Number(t2 - t0) / 1e6, rssBefore: m0.rss, rssAfter: m1.rss, rssDelta: m1.rss - m0.rss, heapDelta: m1.heapUsed - m0.heapUsed, externalDelta: m1.external - m0.external }))
process.exit(0)
