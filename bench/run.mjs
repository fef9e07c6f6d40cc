// `npm run bench` (via scripts/bench.sh): one run measuring the native package and the JS reference
// side by side, alternating, then the Markdown table on stdout and in bench/results.md with the
// machine facts. Progress goes to stderr. `BENCH_QUICK=1`: few iterations (smoke run, not numbers).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { fmtBytes, fmtInt, fmtMs, fullGc, machineFacts, REFERENCE_LABEL, root } from './lib.mjs'
import { tmuxLatency, spawnCounts } from './tmux.mjs'
import { importCost, resumeCost } from './import.mjs'

const started = performance.now()
const quick = process.env.BENCH_QUICK === '1'
const log = (...a) => console.error('[bench]', ...a)
const phaseTimes = {}
async function phase(name, fn) {
  fullGc()
  const t = performance.now()
  log(`${name}…`)
  const r = await fn()
  phaseTimes[name] = (performance.now() - t) / 1000
  log(`${name}: ${phaseTimes[name].toFixed(1)} s`)
  return r
}

const facts = machineFacts()
const loadBefore = os.loadavg()
log(`${facts.cpu}, ${facts.cores} cores, node ${facts.node}, addon ${facts.addon.size} bytes (${facts.addon.sha256})`)

// 1. Pre-step cost, in processes of their own (a 1 000 000-event session per implementation needs the
// heap). The cold rows run in one with V8's GC on the main thread only (`--single-threaded-gc`):
// each of their samples follows a full GC, and from 100 000 events the GC's background threads,
// still sweeping then, stalled whatever ran next by up to 3 ms on this 2-core machine (the harness
// before our listener as much as either package), which split those rows into two modes. The
// other rows keep V8's default GC: their samples follow a full GC per batch, not per sample.
// BENCH_ROWS (e.g. `cold,cold-none`) limits the run to some rows: a quick look while working.
const only = process.env.BENCH_ROWS?.split(',')
const wanted = (row) => !only || only.includes(row)
function prestepChild(rows, flags) {
  if (rows.length === 0) return []
  const dir = mkdtempSync(join(tmpdir(), 'dshtc-bench-'))
  try {
    const out = join(dir, 'prestep.json')
    execFileSync(process.execPath, ['--expose-gc', ...flags, '--max-old-space-size=6144', fileURLToPath(new URL('./prestep.mjs', import.meta.url)), out], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, BENCH_ROWS: rows.join(',') },
    })
    return JSON.parse(readFileSync(out, 'utf8')).rows
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const prestep = await phase('pre-step (instant executor)', () => ({
  rows: [
    ...prestepChild(['cold', 'cold-none'].filter(wanted), ['--single-threaded-gc']),
    ...prestepChild(['cached', 'append', 'compacted'].filter(wanted), []),
    ...prestepChild(['live'].filter(wanted), []),
  ],
}))
const skipped = { skipped: 'not asked for (BENCH_ROWS)' }
// 2. Real tmux pane, real /bin/sh executor.
const tmux = wanted('tmux') ? await phase('first step in a real tmux pane', () => tmuxLatency(quick ? { rounds: 2, iterations: 3 } : { rounds: 10, iterations: 7 })) : skipped
const tmuxPanes = wanted('tmux') ? await phase('first step in a real tmux pane, panes: true', () => tmuxLatency({ ...(quick ? { rounds: 2, iterations: 3 } : { rounds: 10, iterations: 7 }), config: { panes: true } })) : skipped
// Issue 38: what a hostile window costs, ours with panes: true (the JS package reads its three lines).
const tmuxLongName = wanted('tmux') ? await phase('first step in a real tmux pane, a 100,000-character window name', () => tmuxLatency({ ...(quick ? { rounds: 2, iterations: 3 } : { rounds: 6, iterations: 5 }), config: { panes: true }, windowName: 'w'.repeat(100_000) })) : skipped
// Issue 42: every key around the agent on, in a window of three panes.
const everyKey = { panes: 'session', paneOptions: ['@agent-name', '@role'], paneTitles: true, clients: true }
const tmuxEveryKey = wanted('tmux') ? await phase('first step in a real tmux pane, every key on', () => tmuxLatency({ ...(quick ? { rounds: 2, iterations: 3 } : { rounds: 10, iterations: 7 }), config: everyKey, siblings: 2 })) : skipped
const tmuxManyPanes = wanted('tmux') ? await phase('first step in a real tmux pane, 40 panes', () => tmuxLatency({ ...(quick ? { rounds: 2, iterations: 3 } : { rounds: 6, iterations: 5 }), config: { panes: true }, siblings: 39 })) : skipped
const spawned = wanted('tmux') ? await phase('processes per query (strace)', () => spawnCounts()) : skipped
// 3. Import + apply, fresh process per sample.
const load = wanted('import') ? await phase('import + apply (fresh processes)', () => importCost({ samples: quick ? 3 : 30 })) : undefined
// 1e. The first turn after a resume, in a fresh process per sample.
const resumed = wanted('resume') ? await phase('first turn after a resume (fresh processes)', () => resumeCost({ samples: quick ? 2 : 16 })) : []

// --- The table -------------------------------------------------------------------------------------

const rows = []
function row(label, nat, js, { fmt = fmtMs, samples } = {}) {
  const ratio = nat !== undefined && js ? nat / js : undefined
  rows.push([
    label,
    nat === undefined ? '—' : fmt(nat),
    js === undefined ? '—' : fmt(js),
    ratio === undefined ? '—' : `${ratio.toFixed(ratio < 0.1 ? 3 : 2)}×`,
    samples ?? '',
  ])
}

const byKind = (kind) => prestep.rows.filter((r) => r.kind === kind)
for (const r of byKind('cached')) {
  row(`1a. pre-step, log snapshot cached, n = ${fmtInt(r.n)}`, r.native.median, r.js.median, { samples: `${r.native.n} + ${r.js.n}` })
}
for (const r of byKind('append')) {
  row(`1b. pre-step, append just before, n = ${fmtInt(r.n)}`, r.native.median, r.js.median, { samples: `${r.native.n} + ${r.js.n}` })
}
for (const r of byKind('live')) {
  row(`1f. pre-step in a live session (the harness's store), append just before, n = ${fmtInt(r.n)}`, r.native.median, r.js.median, { samples: `${r.native.n} + ${r.js.n}` })
}
for (const r of byKind('compacted')) {
  row(`1d. pre-step just after a compaction shadowed the reading, n = ${fmtInt(r.n)}`, r.native.median, r.js.median, { samples: `${r.native.n} + ${r.js.n}` })
}
for (const r of byKind('cold')) {
  row(`1c. first pre-step of a fresh plugin (cold), reading at the start, n = ${fmtInt(r.n)}`, r.native.median, r.js.median, { samples: `${r.native.n} + ${r.js.n}` })
}
for (const r of byKind('cold-none')) {
  row(`1c. first pre-step of a fresh plugin (cold), no reading in the log, n = ${fmtInt(r.n)}`, r.native.median, r.js.median, { samples: `${r.native.n} + ${r.js.n}` })
}
for (const r of resumed) {
  row(`1e. first pre-step in a fresh process after a resume (import + mount before it), n = ${fmtInt(r.n)}`, r.native.stepMs.median, r.js.stepMs.median, { samples: `${r.native.stepMs.n} + ${r.js.stepMs.n}` })
}
// The whole resume once per process, at the smallest log: import, mount and that first step.
if (resumed.length > 0) {
  const r = resumed[0]
  row(`1e. import + mount + that first pre-step, fresh process, n = ${fmtInt(r.n)}`, r.native.totalMs.median, r.js.totalMs.median, { samples: `${r.native.totalMs.n} + ${r.js.totalMs.n}` })
}
if (tmux.skipped) row(`2. first step in a real tmux pane (${tmux.skipped})`, undefined, undefined)
else row('2. first-step pre-step in a real tmux pane, /bin/sh executor', tmux.native.median, tmux.js.median, { samples: `${tmux.native.n} + ${tmux.js.n}` })
if (!tmuxPanes.skipped) row('2b. the same, ours with `panes: true` in a window of three panes (JS: its three lines)', tmuxPanes.native.median, tmuxPanes.js.median, { samples: `${tmuxPanes.native.n} + ${tmuxPanes.js.n}` })
for (const [label, r] of [
  ['2c. the same as 2b, the window named with 100,000 characters', tmuxLongName],
  ['2d. the same as 2b, in a window of 40 panes', tmuxManyPanes],
  ['2e. the same as 2b, every key on (`panes: "session"`, two `paneOptions`, `paneTitles`, `clients`)', tmuxEveryKey],
]) {
  if (r.skipped) continue
  row(label, r.native.median, r.js.median, { samples: `${r.native.n} + ${r.js.n}` })
  row(`${label.slice(0, 2)}. characters of that reading`, r.readingChars.native, r.readingChars.js, { fmt: fmtInt, samples: '1 + 1' })
}
if (load) {
  row('3a. `await import(pkg)` + `apply(ctx, {})`, fresh process', load.native.totalMs.median, load.js.totalMs.median, { samples: `${load.native.totalMs.n} + ${load.js.totalMs.n}` })
  row('3b. RSS after load − RSS before (same process, after GC)', load.native.rssDelta.median, load.js.rssDelta.median, {
    fmt: fmtBytes,
    samples: `${load.native.rssDelta.n} + ${load.js.rssDelta.n}`,
  })
}
if (!spawned.skipped) {
  const n = spawned.impls.native
  const j = spawned.impls.js
  row('processes per tmux query (strace -ff)', n.processes, j.processes, { fmt: String, samples: '1 + 1' })
  row('processes per tmux query, ours with `panes: true` (strace -ff)', spawned.impls['native-panes'].processes, j.processes, { fmt: String, samples: '1 + 1' })
}
row(`\`${facts.addon.file}\` size`, facts.addon.size, undefined, { fmt: (b) => `${fmtBytes(b)} (${fmtInt(b)} B)` })

const header = ['measurement', 'native (median)', `${REFERENCE_LABEL} (median)`, process.env.BENCH_REFERENCE ? 'native/baseline' : 'native/JS', 'samples (native + JS)']
const table = [
  `| ${header.join(' | ')} |`,
  `|${header.map((h, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n')
const wall = (performance.now() - started) / 1000
const loadAfter = os.loadavg()
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' / ')
const machine = [
  `- date: ${facts.date}`,
  `- CPU: ${facts.cpu} (${facts.cores} cores per /proc/cpuinfo), memory ${facts.memory}; load average (1/5/15 min) ${fmtLoad(loadBefore)} at start, ${fmtLoad(loadAfter)} at end (other work on the machine shows here)`,
  `- Node ${facts.node}, ${facts.kernel}, ${facts.tmux}, /bin/sh = ${facts.sh}`,
  `- commit ${facts.commit}; addon ${facts.addon.file} ${fmtInt(facts.addon.size)} B, sha256 ${facts.addon.sha256}…, built ${facts.addon.built}`,
  `- total bench wall time: ${wall.toFixed(0)} s (${Object.entries(phaseTimes).map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(', ')})${quick ? ' — QUICK RUN, not for quoting' : ''}`,
].join('\n')

// Details: spread of every measured row, and how the processes were counted.
const spread = (s, fmt = fmtMs) => `${fmt(s.median)} (p10 ${fmt(s.p10)}, p90 ${fmt(s.p90)})`
const details = [
  '| row | native | JS |',
  '|---|---:|---:|',
  ...prestep.rows.map((r) => `| ${r.kind}, n = ${fmtInt(r.n)} | ${spread(r.native)} | ${spread(r.js)} |`),
  ...resumed.flatMap((r) => [
    `| resumed, first step, n = ${fmtInt(r.n)} | ${spread(r.native.stepMs)} | ${spread(r.js.stepMs)} |`,
    `| resumed, import + mount before it, n = ${fmtInt(r.n)} | ${spread(r.native.mountMs)} | ${spread(r.js.mountMs)} |`,
  ]),
  ...(tmux.skipped
    ? []
    : [
        `| tmux first step | ${spread(tmux.native)} | ${spread(tmux.js)} |`,
        `| tmux first step, first iteration of each probe process (excluded above) | ${spread(tmux.firstOfProcess.native)} | ${spread(tmux.firstOfProcess.js)} |`,
      ]),
  ...(load
    ? [
        `| import only | ${spread(load.native.importMs)} | ${spread(load.js.importMs)} |`,
        `| apply only | ${spread(load.native.applyMs)} | ${spread(load.js.applyMs)} |`,
        `| V8 heap used after load − before | ${spread(load.native.heapDelta, fmtBytes)} | ${spread(load.js.heapDelta, fmtBytes)} |`,
        `| external memory after load − before | ${spread(load.native.externalDelta, fmtBytes)} | ${spread(load.js.externalDelta, fmtBytes)} |`,
      ]
    : []),
].join('\n')

let processes = ''
if (spawned.skipped) processes = `Processes per query: not counted (${spawned.skipped}).`
else {
  const describe = (r) => {
    const programs = r.programs.map((p) => p.program.split('/').pop())
    return `${r.processes} processes (the executor's \`/bin/sh\` + ${r.forks.length} fork/clone), ${programs.length} successful execve: ${programs.join(', ')}`
  }
  processes = [
    "Processes per query: each implementation's actual command, captured from the executor's `resolve()` request in a",
    'probe that runs as a tmux pane\'s own process, run as `strace -ff -e trace=execve,clone,clone3,fork,vfork /bin/sh -c <command>`;',
    'processes = the traced `/bin/sh` + successful fork/vfork/clone/clone3 without CLONE_THREAD (equal to the number of per-process trace files).',
    `- native: ${describe(spawned.impls.native)}`,
    `- JS: ${describe(spawned.impls.js)}`,
  ].join('\n')
}

const markdown = `${table}\n`
const results = [
  '# Benchmark results: native vs JS reference',
  '',
  'Written by `npm run bench` (bench/run.mjs); what each row measures is in bench/README.md.',
  '',
  machine,
  '',
  markdown,
  '## Spread',
  '',
  details,
  '',
  '## How processes were counted',
  '',
  processes,
  '',
].join('\n')
// The tracked record (bench/results.md, or BENCH_OUT) is written only when asked (`npm run bench --
// --write`, or BENCH_WRITE=1); otherwise the run goes to .tmp/bench-results.md.
const write = process.argv.includes('--write') || process.env.BENCH_WRITE === '1'
const out = write ? join(root, 'bench', process.env.BENCH_OUT ?? 'results.md') : join(root, '.tmp', 'bench-results.md')
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, results)
console.log(`\n${markdown}\n${machine}\n\n${processes}\n`)
log(`wrote ${out.slice(root.length)}${write ? '' : ' (bench/results.md only with --write or BENCH_WRITE=1)'}; total ${wall.toFixed(0)} s`)
