// Row 1c taken apart: `node --expose-gc bench/cold-parts.mjs [steps]` times the first pre-step of a
// turn at 1 000 events (the reading at the start) with what is fresh varied, for both packages in
// turn: nothing (the same plugin and session), the session object (first sight of its log), the
// plugin (a new Context mounted, untimed), or both (row 1c). It prints the median and p10–p90, in
// µs, per mode and package. A diagnostic for work on the cold path, not a row of `npm run bench`.
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import { implementations, line, mount, preStep, runResult } from '../__test__/harness.mjs'
import { agentOf, buildSession, summary } from './lib.mjs'

const steps = Number(process.argv[2] ?? 2_000)
const RESULT = runResult(line() + '\n')
const respond = () => Promise.resolve(RESULT)
const MODES = { neither: [false, false], session: [false, true], plugin: [true, false], both: [true, true] }

for (const [name, plugin] of implementations) {
  const first = await mount(plugin, {}, { respond })
  const reading = (await preStep(first.ctx, agentOf(Session.create(SessionId('reading'))), { turn: 1 })).decision.messages[0]
  const session = buildSession(`parts-${name}`, reading, 1_000)
  const rows = []
  for (const [mode, [freshPlugin, freshSession]] of Object.entries(MODES)) {
    const times = []
    for (let i = 0; i < steps; i++) {
      const { ctx } = freshPlugin ? await mount(plugin, {}, { respond }) : first
      // A fresh session object over the same log, as after a resume; else the session itself.
      const agent = { ...agentOf(session), session: freshSession ? { events: session.events } : session }
      const t0 = process.hrtime.bigint()
      const { decision, base } = await preStep(ctx, agent, { turn: 2 })
      times.push(Number(process.hrtime.bigint() - t0) / 1e3)
      if (!Object.is(decision, base)) throw new Error(`${name} ${mode}: the pre-step was not suppressed`)
    }
    // The first tenth is JIT warm-up.
    const { median, p10, p90 } = summary(times.slice(Math.floor(steps / 10)))
    rows.push(`${mode} ${median.toFixed(1)} (${p10.toFixed(1)}–${p90.toFixed(1)})`)
  }
  console.log(`${name}, median (p10–p90) µs: ${rows.join('  ')}`)
}
