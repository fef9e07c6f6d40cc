import { Inbox } from '@deepseek-ai/dsh-agent'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import { implementations, mount, preStep, runResult, line } from '../__test__/harness.mjs'
import { buildSession } from './lib.mjs'
const RESULT = runResult(line() + '\n')
const respond = () => Promise.resolve(RESULT)
const agentOf = (session) => ({ id: session.id, options: {}, session, inbox: new Inbox(session, { inserted() {}, discarded() {}, claimed() {} }), status: 'running' })
const { ctx: c0 } = await mount(implementations[1][1], {}, { respond })
const { decision } = await preStep(c0, agentOf(Session.create(SessionId('x'))))
const reading = decision.messages[0]
const which = process.argv[2]
const N = Number(process.argv[3] ?? 1000)
const plugins = { native: implementations[0][1], js: implementations[1][1], none: null }
const m = await mount(plugins[which], {}, { respond, skipPlugin: which === 'none' })
const agent = agentOf(buildSession('s', reading, N))
for (let k = 0; k < 5; k++) {
  const xs = []
  for (let i = 0; i < 3000; i++) { const t0 = process.hrtime.bigint(); await preStep(m.ctx, agent, { turn: 2 + i }); xs.push(Number(process.hrtime.bigint() - t0) / 1e3) }
  xs.sort((a, b) => a - b); console.log(which, N, 'median µs', xs[1500].toFixed(1), 'p10', xs[300].toFixed(1))
}
