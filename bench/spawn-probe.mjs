// Runs inside a tmux pane as "the agent process" (so the pane owns its tty): mounts each
// implementation in a real Context with the real AgentRegistry and an executor that runs the very
// command the plugin resolved, under `strace -f`, as `/bin/sh -c <command>` in its own process
// group, exactly as the /bin/sh executor of the tests does. Writes, per implementation, the command,
// its result, the reading, and the traced process tree. Spec (JSON file, argv[2]): { out }.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry, { agentEvents, Inbox } from '@deepseek-ai/dsh-agent'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import { ShellExecutor } from '@deepseek-ai/dsh-shell'

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const dir = mkdtempSync(join(tmpdir(), 'dshtc-strace-'))
const TRACED = 'execve,clone,clone3,fork,vfork'

/**
 * Runs `/bin/sh -c command` under `strace -ff` (one trace file per process, `<prefix>.<pid>`, so
 * no line is split between processes), and returns a ShellRunResult.
 */
function tracedRun(command, tracePrefix, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn('strace', ['-ff', '-qq', '-e', `trace=${TRACED}`, '-o', tracePrefix, '/bin/sh', '-c', command], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out = []
    const err = []
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), timeoutMs)
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => err.push(d))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      const text = Buffer.concat(out).toString('utf8')
      const errText = Buffer.concat(err).toString('utf8')
      resolve({
        exitCode: code,
        signal,
        timedOut: false,
        aborted: false,
        timeoutMs,
        stdout: { text, bytes: Buffer.byteLength(text), truncated: false },
        stderr: { text: errText, bytes: Buffer.byteLength(errText), truncated: false },
      })
    })
  })
}

/**
 * Reads the `strace -ff -o <prefix>` files: processes = the traced `/bin/sh` plus every successful
 * fork/vfork/clone/clone3 that made a process (not a thread); programs = every successful execve.
 */
function countTrace(prefix) {
  const base = prefix.split('/').pop()
  const files = readdirSync(dir).filter((f) => f.startsWith(base + '.'))
  const lines = files
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) => `${f.slice(base.length + 1)} ${l}`))
  const forks = []
  const programs = []
  for (const l of lines) {
    const m = /^(\d+)\s+(execve|clone3?|v?fork)\((.*)\)\s+=\s+(-?\d+)/.exec(l)
    if (!m) continue
    const [, pid, call, args, ret] = m
    if (Number(ret) < 0) continue // a failed execve (PATH search) or fork
    if (call === 'execve') programs.push({ pid: Number(pid), program: /^"([^"]*)"/.exec(args)?.[1] ?? args.slice(0, 40) })
    else if (!/CLONE_THREAD/.test(args)) forks.push({ parent: Number(pid), child: Number(ret), call })
  }
  return { processes: 1 + forks.length, tracedPids: files.length, forks, programs, trace: lines }
}

class TracingExecutor extends ShellExecutor {
  resolve(request) {
    this.request = request
    return { command: request.command, workdir: process.cwd(), timeoutMs: Math.min(request.timeoutMs ?? 30_000, 30_000), stdoutMaxBytes: 1 << 20, signal: request.signal, sandboxPolicy: undefined }
  }
  async run(resolved) {
    this.traceFile = join(dir, `trace-${Date.now()}-${Math.random().toString(36).slice(2)}`)
    this.result = await tracedRun(resolved.command, this.traceFile, resolved.timeoutMs)
    return this.result
  }
  start() {
    throw new Error('foreground only')
  }
}

const result = { pid: process.pid, tmuxPane: process.env.TMUX_PANE, impls: {} }
try {
  for (const [name, specifier, config] of [
    ['native', '@deepseek-ai/dsh-tmux-context', {}],
    ['native-panes', '@deepseek-ai/dsh-tmux-context', { panes: true }],
    ['js', spec.reference ?? 'dsh-tmux-context-js', {}],
  ]) {
    const plugin = await import(specifier)
    const ctx = new Context()
    await ctx.plugin(AgentRegistry)
    let executor
    await ctx.plugin(
      class extends TracingExecutor {
        constructor(c) {
          super(c)
          executor = this
        }
      },
    )
    await ctx.plugin(plugin, config)
    const session = Session.create(SessionId(`strace-${name}`))
    const agent = { id: session.id, options: {}, session, inbox: new Inbox(session, { inserted() {}, discarded() {}, claimed() {} }), status: 'running' }
    const decision = await agentEvents(ctx, agent).waterfall('agent/pre-step', { messages: [], turn: 1, step: 1, signal: new AbortController().signal }, () =>
      Promise.resolve({ kind: 'enter', messages: [] }),
    )
    const counted = countTrace(executor.traceFile)
    result.impls[name] = {
      command: executor.request.command,
      exitCode: executor.result.exitCode,
      stdout: executor.result.stdout.text,
      stderr: executor.result.stderr.text,
      reading: decision.messages[0]?.content?.[0]?.text ?? null,
      ...counted,
    }
  }
} catch (error) {
  result.error = String(error?.stack ?? error)
}
rmSync(dir, { recursive: true, force: true })
writeFileSync(spec.out, JSON.stringify(result, null, 2))
process.exit(0)
