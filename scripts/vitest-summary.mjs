// `node scripts/vitest-summary.mjs [--counts] [--steps FILE] [--cargo FILE] <vitest JSON report>...`:
// what a test command did, then one plain closing line `N passed, N failed, N skipped` (CI reads it).
//   --steps FILE: the checks scripts/test.sh recorded, one per line, `<name>\t<passed|failed>\t<what>`
//                 (fmt, clippy, the coverage gate); each failed one counts as one failure;
//   --cargo FILE: cargo test's output, whose `test result:` lines count (the Rust tests);
//   each report: a vitest run's counts and, from X.build.json beside X.json (__test__/global-setup.mjs),
//                the build it ran; a report that is missing (its run did not get that far) is named
//                and counts as one failure.
// The skipped tests are counted by the reason their names give (`(skipped: …)`), versions folded.
// --counts: the closing line only.
import { existsSync, readFileSync } from 'node:fs'

const args = process.argv.slice(2)
const counts = args.includes('--counts')
const option = (name) => {
  const i = args.indexOf(name)
  return i === -1 ? undefined : args.splice(i, 2)[1]
}
const stepsFile = option('--steps')
const cargoFile = option('--cargo')
const files = args.filter((a) => a !== '--counts')
const lines = []
const say = (line) => lines.push(line)
let [passed, failed, skipped] = [0, 0, 0]

const steps = stepsFile && existsSync(stepsFile) ? readFileSync(stepsFile, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')) : []
for (const [name, status, what] of steps.filter(([name]) => name !== 'gate')) {
  say(`${name}: ${status}${what ? ` (${what})` : ''}`)
  if (status !== 'passed') failed += 1
}

if (cargoFile !== undefined) {
  const results = existsSync(cargoFile) ? [...readFileSync(cargoFile, 'utf8').matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)] : []
  if (results.length === 0) {
    say(`Rust tests (cargo test): no result (${cargoFile} holds none: the run did not get that far)`)
    failed += 1
  } else {
    const [p, f, i] = [1, 2, 3].map((k) => results.reduce((n, m) => n + Number(m[k]), 0))
    say(`Rust tests (cargo test --lib): ${p} passed, ${f} failed, ${i} ignored`)
    ;[passed, failed, skipped] = [passed + p, failed + f, skipped + i]
  }
}

const skips = []
for (const file of files) {
  if (!existsSync(file)) {
    say(`vitest ${file}: no report (the run did not finish)`)
    failed += 1
    continue
  }
  const run = JSON.parse(readFileSync(file, 'utf8'))
  const build = file.replace(/\.json$/, '.build.json')
  const ran = existsSync(build) ? JSON.parse(readFileSync(build, 'utf8')).said : 'no build named (its setup did not finish)'
  const [p, f, s] = [run.numPassedTests, run.numFailedTests, run.numPendingTests + run.numTodoTests]
  const broken = run.numFailedTestSuites > 0 && f === 0 ? `, ${run.numFailedTestSuites} file(s) failed to run` : ''
  const suites = run.testResults.map((r) => r.name.split(/[\\/]/).pop().replace(/\.test\.mjs$/, ''))
  const which = suites.length > 4 ? `${suites.length} suite files` : suites.join(', ')
  say(`vitest (${which}; ${file}): ${p} passed, ${f} failed, ${s} skipped${broken}, on the ${ran}`)
  // Each failed test by name, so that no one scrolls back for it.
  for (const result of run.testResults) {
    for (const test of result.assertionResults ?? []) {
      if (test.status !== 'failed') continue
      say(`  failed: ${result.name.split(/[\\/]/).pop()} > ${test.fullName ?? test.title}`)
      // Its first words, so that a log that keeps only its tail still says why.
      const why = (test.failureMessages ?? [])[0]?.split('\n').find((l) => l.trim())?.trim()
      if (why) say(`    ${why.length > 300 ? `${why.slice(0, 300)}…` : why}`)
    }
  }
  ;[passed, failed, skipped] = [passed + p, failed + f + (broken ? run.numFailedTestSuites : 0), skipped + s]
  if (run.success === false && f === 0 && !broken) failed += 1
  for (const r of run.testResults) for (const a of r.assertionResults) if (['pending', 'skipped', 'todo'].includes(a.status)) skips.push(a.fullName)
}

for (const [, status, what] of steps.filter(([name]) => name === 'gate')) {
  say(`coverage gate: ${status}${what ? ` (${what})` : ''}`)
  if (status !== 'passed') failed += 1
}

if (skips.length > 0) {
  // By reason: the `(skipped: …)` a name ends with, its versions (2.6, 3.1) folded into one.
  const groups = new Map()
  for (const name of skips) {
    const reason = name.match(/\(skipped: (.*)\)$/)?.[1]
    const key = reason === undefined ? 'no reason in its name' : reason.replace(/\d+\.\d+/g, '<version>')
    const group = groups.get(key) ?? { n: 0, versions: new Set(), names: [] }
    group.n += 1
    for (const v of reason?.match(/\d+\.\d+/g) ?? []) group.versions.add(v)
    group.names.push(name)
    groups.set(key, group)
  }
  say(`skipped, by reason:`)
  for (const [key, g] of groups) {
    say(`  ${g.n} × ${key}${g.versions.size > 0 ? ` (<version>: ${[...g.versions].join(', ')})` : ''}`)
    if (key === 'no reason in its name') for (const n of g.names) say(`      - ${n}`)
  }
}
if (!counts) console.log(lines.join('\n'))
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
