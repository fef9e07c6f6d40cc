// Test harness over the real harness packages: a Cordis Context with the real AgentRegistry, a
// ShellExecutor subclass whose run() answers what a test scripts, a real Session, and the pre-step
// hook fired exactly as the agent loop fires it. Both implementations mount through it unchanged.
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context, Service } from '@deepseek-ai/cordis'
import AgentRegistry, { agentEvents, Inbox } from '@deepseek-ai/dsh-agent'
import { createUserMessage } from '@deepseek-ai/dsh-llm'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import { ShellExecutor } from '@deepseek-ai/dsh-shell'
import { SEP, line, runResult } from './answers.mjs'
import { checkBuild } from './build.mjs'

// TMUX_CONTEXT_PACKAGE: the package directory to test instead of this checkout (scripts/test.sh runs
// the contract and differential suites once more against the WebAssembly build installed that way).
export const native = await import(process.env.TMUX_CONTEXT_PACKAGE ? pathToFileURL(join(process.env.TMUX_CONTEXT_PACKAGE, 'index.js')).href : '../index.js')
// Every suite that mounts through here stops at import when the build that loaded is not the one this pass built.
checkBuild(native)
export const reference = await import('dsh-tmux-context-js')
export const implementations = [
  ['native', native],
  ['js', reference],
]

export { SEP, line, runResult }

function executorClass(base, record) {
  return class extends base {
    resolve(request) {
      record.resolved.push(request)
      if (record.resolveError !== undefined) throw record.resolveError
      return { ...request, workdir: process.cwd(), timeoutMs: request.timeoutMs ?? 30_000, stdoutMaxBytes: 1 << 20, sandboxPolicy: undefined }
    }
    run(spec) {
      record.ran.push(spec)
      return record.respond(spec)
    }
    start() {
      record.started += 1
      throw new Error('start() must never be called')
    }
  }
}

/**
 * Mount `plugin` with `config` in a fresh Context holding the real AgentRegistry and, by default, a
 * scripted `ctx.shell`. `executor: 'bash'` mounts it as the 0.0.x harness's `ctx.bash` instead;
 * `executor: 'none'` mounts none. `respond(spec)` answers run(); by default one good reading.
 */
export async function mount(plugin, config = {}, { executor = 'shell', respond, ctx: given, skipPlugin = false } = {}) {
  const ctx = given ?? new Context()
  if (!given) await ctx.plugin(AgentRegistry)
  const record = {
    resolved: [],
    ran: [],
    started: 0,
    resolveError: undefined,
    respond: respond ?? (() => Promise.resolve(runResult(line() + '\n'))),
  }
  if (executor === 'shell') await ctx.plugin(executorClass(ShellExecutor, record))
  if (executor === 'bash') {
    class BashService extends Service {
      constructor(c) {
        super(c, 'bash')
      }
    }
    await ctx.plugin(executorClass(BashService, record))
  }
  const fiber = skipPlugin ? undefined : await ctx.plugin(plugin, config)
  return { ctx, record, fiber }
}

/** A live agent over a real Session (optionally seeded with earlier events, as a resumed one). */
export function makeAgent(id = 'session-a', seed) {
  const session = Session.create(SessionId(id), seed)
  const inbox = new Inbox(session, { inserted() {}, discarded() {}, claimed() {} })
  return { id: session.id, options: { provider: 'mock', model: 'mock' }, session, inbox, status: 'running' }
}

/**
 * Fire `agent/pre-step` as the loop does. `downstream` is what `next()` resolves to (default an
 * `enter` decision with no messages). Returns the listener chain's decision and the downstream one.
 */
export async function preStep(ctx, agent, { turn = 1, step = 1, signal = new AbortController().signal, downstream } = {}) {
  const base = downstream ?? { kind: 'enter', messages: [] }
  const decision = await agentEvents(ctx, agent).waterfall('agent/pre-step', { messages: [], turn, step, signal }, () =>
    Promise.resolve(base),
  )
  return { decision, base }
}

/**
 * Whether the listener chain handed back the downstream decision itself. "The same value" is
 * `Object.is` (vitest's `toBe`), never `===`: a downstream decision may be `NaN`, and `NaN !== NaN`.
 */
export const isPassThrough = ({ decision, base }) => Object.is(decision, base)

/** Append what the step carries, as the loop does: `step/start`, then each message as `user/message`. */
export function commit(agent, decision, turn = 1) {
  agent.session.append('step/start', { turn, step: 1 })
  for (const message of decision.messages ?? []) agent.session.append('user/message', message, { surfaceOp: 'append' })
}

/** One full turn: pre-step on step 1, then commit what it returned. */
export async function turn(ctx, agent, n, options = {}) {
  const out = await preStep(ctx, agent, { turn: n, ...options })
  if (out.decision.kind === 'enter') commit(agent, out.decision, n)
  return out
}

/** The readings a decision carries (messages whose source is this plugin, in either generation's shape). */
export function readings(decision) {
  return (decision.messages ?? []).filter((m) => m?.source?.plugin === 'tmux-context' || m?.source?.kind === 'tmux-context')
}

/** The message JSON without its `id`, for comparing two implementations. */
export function withoutId(message) {
  const { id, ...rest } = JSON.parse(JSON.stringify(message))
  return rest
}

export function isDeepFrozen(value, seen = new Set()) {
  if (value === null || typeof value !== 'object' || seen.has(value)) return true
  seen.add(value)
  return Object.isFrozen(value) && Object.values(value).every((v) => isDeepFrozen(v, seen))
}

/**
 * A compaction of the surface nodes from seq `start` to seq `end`, as dsh-compaction-basic commits one
 * (`commitCompactionBody`): `compaction/start`, `compaction/summary` with `shadowedSeqs`, the checkpoint
 * `user/message` with `surfaceOp: { op: 'replace', start, end }` and `sourceEventSeqs` [start event,
 * summary event, ...shadowed], then `compaction/end`. Returns the shadowed seqs.
 */
export function compact(agent, start, end, turnNumber = null) {
  const session = agent.session
  const nodes = session.surface.nodes
  const shadowedSeqs = nodes.slice(nodes.indexOf(start), nodes.indexOf(end) + 1)
  const lifecycle = { compactionId: randomUUID(), turn: turnNumber }
  const startEvent = session.append('compaction/start', lifecycle)
  const summary = [{ type: 'text', text: 'The user asked where they are; the assistant answered.' }]
  const summaryEvent = session.append('compaction/summary', {
    compactionId: lifecycle.compactionId,
    summary,
    shadowedRange: { start, end },
    shadowedSeqs: [...shadowedSeqs],
    shadowedTokenCount: 400,
    provider: 'mock',
    model: 'mock',
  })
  const checkpoint = createUserMessage({
    content: [{ type: 'text', text: 'This is an automatically generated checkpoint.\n\n<compacted-summary>' }, ...summary, { type: 'text', text: '</compacted-summary>' }],
    source: { kind: 'plugin', plugin: 'compact', compactionId: lifecycle.compactionId },
  })
  session.append('user/message', checkpoint, {
    surfaceOp: { op: 'replace', start, end },
    sourceEventSeqs: [startEvent.seq, summaryEvent.seq, ...shadowedSeqs],
  })
  session.append('compaction/end', lifecycle)
  return shadowedSeqs
}
