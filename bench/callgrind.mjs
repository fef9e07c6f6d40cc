// Instructions per pre-step, deterministic: `bash scripts/callgrind.sh [index.js]` runs this file
// under valgrind's callgrind twice per row, with K pre-steps and with none, and divides the
// difference by K. Rows: `cached` (1a: the log unchanged since the last read) and `append` (1b: one
// ordinary event appended before each pre-step), at 1 000 events, the package at argv[2] (default:
// this checkout). Nothing is timed here.
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import { line, mount, preStep, runResult } from '../__test__/harness.mjs'
import { agentOf, appendOrdinary, buildSession } from './lib.mjs'

const [pkg, row, steps] = [process.argv[2], process.argv[3], Number(process.argv[4])]
const plugin = await import(pathToFileURL(resolve(pkg)).href)
const RESULT = runResult(line() + '\n')
const { ctx, record } = await mount(plugin, {}, { respond: () => Promise.resolve(RESULT) })
const first = await preStep(ctx, agentOf(Session.create(SessionId('reading'))), { turn: 1 })
const agent = agentOf(buildSession('callgrind', first.decision.messages[0], 1_000))
const warm = 300
if (row.startsWith('cold')) {
  // cold rows (1c taken apart): `cold` a fresh plugin and a fresh session object over the same log,
  // `cold-plugin` a fresh plugin on the same session, `cold-session` the same plugin on a fresh
  // session object. Every iteration mounts (with or without its pre-step), so mounting cancels out.
  const freshPlugin = row !== 'cold-session'
  const freshSession = row !== 'cold-plugin'
  const total = warm + 200
  for (let i = 0; i < total; i++) {
    const mounted = freshPlugin ? await mount(plugin, {}, { respond: () => Promise.resolve(RESULT) }) : { ctx }
    if (i >= warm + steps) continue
    const session = freshSession ? { events: agent.session.events } : agent.session
    const downstream = { kind: 'enter', messages: [] }
    const { decision } = await preStep(mounted.ctx, { ...agent, session }, { turn: 2 + i, downstream })
    if (!Object.is(decision, downstream)) throw new Error('the pre-step was not suppressed')
  }
  process.exit(0)
}
for (let i = 0; i < warm + steps; i++) {
  if (row === 'append') appendOrdinary(agent.session, 1_000 + i)
  const downstream = { kind: 'enter', messages: [] }
  const { decision } = await preStep(ctx, agent, { turn: 2 + i, downstream })
  if (!Object.is(decision, downstream)) throw new Error('the pre-step was not suppressed')
}
if (record.ran.length !== warm + steps + 1) throw new Error('a pre-step did not query exactly once')
