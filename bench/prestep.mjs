// Row 1: the plugin's per-turn cost with an instant executor, both implementations in one process,
// alternating. Run as `node --expose-gc bench/prestep.mjs <out.json>` (bench/run.mjs does).
//
// Each n gets one real Session per implementation (a reading at seq 2, then n ordinary events) and
// one mounted Context per implementation (real Cordis Context, real AgentRegistry, a ShellExecutor
// whose run() resolves at once with one fixed reading line). Every measured pre-step is `step: 1`
// of a turn whose location equals the stored reading: the plugin reads the log, queries, parses,
// compares, and hands the decision back untouched (suppressed). Each sample is checked for that
// (same decision object, exactly one query): a check of behaviour, not of timing.
import { writeFileSync } from 'node:fs'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import { Session, SessionId, SessionStore } from '@deepseek-ai/dsh-session'
import { compact, implementations, mount, preStep, runResult, line } from '../__test__/harness.mjs'
import { agentOf, appendOrdinary, buildEvents, buildSession, fullGc, REFERENCE, summary } from './lib.mjs'

const out = process.argv[2]
const quick = process.env.BENCH_QUICK === '1'
const log = (...a) => console.error('[prestep]', ...a)
const now = () => process.hrtime.bigint()
const ms = (t0, t1) => Number(t1 - t0) / 1e6

/** Iterations per n: cold samples, and rounds × batch per variant and implementation. */
const PLAN = [
  { n: 1_000, cold: 40, rounds: 20, batch: 40 },
  { n: 10_000, cold: 40, rounds: 20, batch: 20 },
  { n: 100_000, cold: 20, rounds: 20, batch: 8 },
  { n: 1_000_000, cold: 11, rounds: 12, batch: 8 },
].map((p) => (quick ? { ...p, cold: 3, rounds: 4, batch: 2 } : p))

// The executor's one fixed answer, shared by every run() (it resolves at once).
const RESULT = runResult(line() + '\n')
const respond = () => Promise.resolve(RESULT)


/** A fresh real Context with the instant executor and `plugin` applied with `{}`. */
const mountInstant = (plugin) => mount(plugin, {}, { respond })

/** The reading the plugin itself produces for RESULT, as it lands in a session. */
async function makeReading(plugin) {
  const { ctx } = await mountInstant(plugin)
  const agent = agentOf(Session.create(SessionId('reading-source')))
  const { decision } = await preStep(ctx, agent, { turn: 1 })
  if (decision.messages.length !== 1) throw new Error('the plugin did not inject a reading on a fresh session')
  return decision.messages[0]
}

/** Which rows to measure (`BENCH_ROWS=cold`, say, for a quick look at one kind). */
const ROWS = (process.env.BENCH_ROWS ?? 'cold,cold-none,cached,append,compacted,live').split(',')

/**
 * One measured pre-step: time it, then check it queried once and was suppressed (or, with
 * `expectReading`, that it put exactly one reading in front of the step).
 */
async function measure(m, agent, turn, expectReading = false) {
  if (typeof expectReading === 'function') expectReading = expectReading(m.name)
  const ran = m.record.ran.length
  const downstream = { kind: 'enter', messages: [] }
  const t0 = now()
  const { decision } = await preStep(m.ctx, agent, { turn, downstream })
  const t1 = now()
  const injected = decision.messages?.length === 1
  if (expectReading === 'either' ? !injected && !Object.is(decision, downstream) : expectReading ? !injected : !Object.is(decision, downstream)) {
    throw new Error(`${m.name}: pre-step was ${expectReading ? 'not injected' : 'not suppressed'} (turn ${turn})`)
  }
  if (m.record.ran.length !== ran + 1) throw new Error(`${m.name}: pre-step did not query exactly once`)
  return ms(t0, t1)
}

const results = { rows: [] }
// [['native', mod], ['js', mod]]: 'js' is the JS package, or the baseline build (BENCH_REFERENCE).
const impls = [implementations[0], ['js', await import(REFERENCE)]]
const reading = await makeReading(impls[0][1])

// JIT warm-up of both implementations (and of the harness, Session and Cordis paths) on a small
// session, both variants, before anything is recorded.
{
  log('warm-up')
  for (const [name, plugin] of impls) {
    const m = { name, ...(await mountInstant(plugin)) }
    const agent = agentOf(buildSession(`warm-${name}`, reading, 1_000))
    for (let i = 0; i < (quick ? 100 : 1_500); i++) {
      if (i % 2) appendOrdinary(agent.session, 1_000 + i)
      await measure(m, agent, 2 + i)
    }
  }
}

for (const { n, cold, rounds, batch } of PLAN) {
  fullGc()
  const tb = performance.now()
  const state = {}
  // The steady rows' sessions, n events each (a session of none where only the cold rows are asked:
  // those read logs of their own, below, and take only the agent's other fields from here).
  const steady = ['cached', 'append', 'compacted'].some((v) => ROWS.includes(v))
  for (const [name, plugin] of impls) {
    state[name] = { name, plugin, agent: agentOf(buildSession(`bench-${name}-${n}`, reading, steady ? n : 0)), m: undefined, next: n, turn: 2 }
  }
  if (steady) log(`n=${n}: sessions built in ${((performance.now() - tb) / 1000).toFixed(1)} s (${state.native.agent.session.seq} events each)`)
  const order = (r) => (r % 2 ? [...impls].reverse() : impls).map(([name]) => state[name])

  // Cold: the first pre-step of a freshly applied plugin on a session object this process has not
  // seen before, as after a resume: a new object over the same frozen log (`{ events }`; both
  // packages only read `session.events`). For the native package this builds its per-session index
  // from the full log (the reading is at seq 2, so all of it is read); for the JS package it is an
  // ordinary call. Each sample mounts a new Context (untimed).
  // Both shapes: the newest reading at the start of the log (all of it is read), and no reading
  // at all (the plugin newly mounted on an old session, or an agent never read in tmux), where
  // the step gets a reading. Both packages read the same log of each shape (the same objects).
  const start = ROWS.includes('cold') ? buildSession(`bench-start-${n}`, reading, n) : undefined
  const none = ROWS.includes('cold-none') ? buildSession(`bench-none-${n}`, null, n) : undefined
  for (const kind of ['cold', 'cold-none'].filter((k) => ROWS.includes(k))) {
    fullGc()
    const coldSamples = { native: [], js: [] }
    for (let r = 0; r < cold; r++) {
      for (const s of order(r)) {
        s.m = { name: s.name, ...(await mountInstant(s.plugin)) }
        if (n >= 100_000) fullGc()
        const events = kind === 'cold' ? start.events : none.events
        const resumed = { ...s.agent, session: { events } }
        coldSamples[s.name].push(await measure(s.m, resumed, s.turn++, kind === 'cold-none'))
      }
    }
    results.rows.push({ kind, n, native: summary(coldSamples.native), js: summary(coldSamples.js) })
    log(`n=${n}: ${kind} done (native ${summary(coldSamples.native).median.toFixed(4)} ms, js ${summary(coldSamples.js).median.toFixed(4)} ms)`)
  }

  // Steady state, on the last mounted Context of each implementation (already indexed, warm).
  for (const s of Object.values(state)) s.m ??= { name: s.name, ...(await mountInstant(s.plugin)) }
  // compacted: before each pre-step (untimed) a fresh reading lands and a compaction, shaped as
  // dsh-compaction-basic writes it, shadows it. The native package then reads tmux again and injects
  // (the surface is looked at once: `replaceGeneration` moved); the JS package suppresses, as it
  // compares against the shadowed reading. The compaction shadows only the reading's node, so the
  // surface keeps its length (the lookup's worst case: a whole-surface scan).
  const shadowed = (s) => {
    const landed = s.agent.session.append('user/message', JSON.parse(JSON.stringify(reading)), { surfaceOp: 'append' })
    compact(s.agent, landed.seq, landed.seq, s.turn)
  }
  // A baseline build (BENCH_REFERENCE) may predate the re-read after a compaction: either is fine.
  const injects = (name) => (name === 'native' ? true : process.env.BENCH_REFERENCE ? 'either' : false)
  for (const variant of ['cached', 'append', 'compacted'].filter((v) => ROWS.includes(v))) {
    fullGc()
    const before = (s) => {
      if (variant === 'append') appendOrdinary(s.agent.session, s.next++)
      if (variant === 'compacted') shadowed(s)
    }
    const expected = variant === 'compacted' ? injects : false
    for (const s of Object.values(state)) {
      for (let i = 0; i < 3; i++) {
        before(s)
        await measure(s.m, s.agent, s.turn++, expected)
      }
    }
    const samples = { native: [], js: [] }
    for (let r = 0; r < rounds; r++) {
      for (const s of order(r)) {
        // A full GC (untimed) before each batch, so that neither implementation pays for garbage
        // or GC work the other one left (at 1 000 000 events the JS package drops two 8 MB arrays
        // per call; without this the native batches that follow run ~2× slower).
        fullGc()
        for (let b = 0; b < batch; b++) {
          if (variant === 'cached') void s.agent.session.events // the getter returns the same frozen array
          else before(s)
          samples[s.name].push(await measure(s.m, s.agent, s.turn++, expected))
        }
      }
    }
    results.rows.push({ kind: variant, n, native: summary(samples.native), js: summary(samples.js) })
    log(`n=${n}: ${variant} done (native ${summary(samples.native).median.toFixed(4)} ms, js ${summary(samples.js).median.toFixed(4)} ms)`)
  }
  for (const s of Object.values(state)) s.agent = s.m = undefined

  // live: a session of the harness's store, as dsh runs one: `ctx.sessions.create()` (SessionStore of
  // dsh-session, seeded with the n events as a resumed session is), an ordinary append before each
  // step (dsh appends before every step), each append published as 'session/event'. Its
  // `session.events` is a fresh frozen copy of the whole log for whoever reads it first after an
  // append: here that is the plugin, as no other plugin reads the log in this Context.
  if (ROWS.includes('live') && n !== 10_000) {
    fullGc()
    const tl = performance.now()
    const live = {}
    for (const [name, plugin] of impls) {
      const ctx = new Context()
      await ctx.plugin(AgentRegistry)
      await ctx.plugin(SessionStore)
      let published = 0
      ctx.on('session/event', () => { published++ })
      const session = ctx.sessions.create(SessionId(`live-${name}-${n}`), { seed: buildEvents(reading, n) })
      live[name] = { name, m: { name, ...(await mount(plugin, {}, { respond, ctx })) }, agent: agentOf(session), next: n, turn: 2, published: () => published }
    }
    log(`n=${n}: live sessions built in ${((performance.now() - tl) / 1000).toFixed(1)} s (${live.native.agent.session.seq} events each)`)
    const step = async (s) => {
      appendOrdinary(s.agent.session, s.next++)
      return measure(s.m, s.agent, s.turn++, false)
    }
    for (const s of Object.values(live)) for (let i = 0; i < 3; i++) await step(s)
    // A check of the set-up, not of timing: the appends reached the store's subscribers.
    for (const s of Object.values(live)) if (s.published() < 3) throw new Error(`${s.name}: the store published ${s.published()} of 3 appends`)
    const samples = { native: [], js: [] }
    for (let r = 0; r < rounds; r++) {
      for (const s of (r % 2 ? [...impls].reverse() : impls).map(([name]) => live[name])) {
        fullGc()
        for (let b = 0; b < batch; b++) samples[s.name].push(await step(s))
      }
    }
    results.rows.push({ kind: 'live', n, native: summary(samples.native), js: summary(samples.js) })
    log(`n=${n}: live done (native ${summary(samples.native).median.toFixed(4)} ms, js ${summary(samples.js).median.toFixed(4)} ms)`)
    for (const s of Object.values(live)) s.agent = s.m = undefined
  }
}

writeFileSync(out, JSON.stringify(results, null, 2))
fullGc()
process.exit(0)
