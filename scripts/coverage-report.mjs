// `node scripts/coverage-report.mjs <dir> [--gate]` (scripts/coverage.sh): the V8 table of index.js,
// invariant.js and loader-errors.cjs, from vitest's coverage (its workers) merged with NODE_V8_COVERAGE's
// files (child processes; installed copies of the two files map back to this checkout), then every file's line coverage against the floors docs/maintainers.md lists under
// "Coverage". With --gate, a file below its floor fails.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import libCoverage from 'istanbul-lib-coverage'
import v8ToIstanbul from 'v8-to-istanbul'

const root = fileURLToPath(new URL('..', import.meta.url))
const [dir, flag] = process.argv.slice(2)
const FILES = ['index.js', 'invariant.js', 'loader-errors.cjs']
const source = Object.fromEntries(FILES.map((f) => [f, readFileSync(join(root, f), 'utf8')]))

/**
 * The checkout's file a child process's script stands for: itself, or an installed copy
 * (`…/@deepseek-ai/dsh-tmux-context/<file>`, from the tarballs scripts/coverage.sh packs from this
 * checkout, most since removed), when its module's range is exactly as long as the file.
 */
function fileOf(url, functions) {
  if (!url.startsWith('file://')) return undefined
  const path = fileURLToPath(url)
  const name = FILES.find((f) => path === join(root, f) || path.endsWith(`/@deepseek-ai/dsh-tmux-context/${f}`))
  const whole = functions.find((f) => f.functionName === '')?.ranges[0]
  return name !== undefined && whole?.startOffset === 0 && whole.endOffset === source[name].length ? name : undefined
}

// Lines, as vitest's coverage counts them (its workers), each covered there or in a child process
// (the two converters shape statements differently, so they meet at the line level).
const map = libCoverage.createCoverageMap(JSON.parse(readFileSync(join(dir, 'vitest', 'coverage-final.json'), 'utf8')))
const lines = Object.fromEntries(FILES.map((f) => [f, map.files().includes(join(root, f)) ? map.fileCoverageFor(join(root, f)).getLineCoverage() : {}]))
/**
 * A child process's V8 coverage, or undefined for a file that is empty or cut short: Node writes it
 * as the process exits, so a process killed meanwhile (a tmux pane's, when its server goes) leaves
 * such a file; what it ran is then not counted.
 */
function childCoverage(file) {
  try {
    return JSON.parse(readFileSync(join(dir, 'v8', file), 'utf8')).result
  } catch {
    return undefined
  }
}
const partial = []
for (const file of readdirSync(join(dir, 'v8'))) {
  const result = childCoverage(file)
  if (result === undefined) {
    partial.push(file)
    continue
  }
  for (const { url, functions } of result) {
    const name = fileOf(url, functions)
    if (name === undefined) continue
    const converter = v8ToIstanbul(join(root, name), 0, { source: source[name] })
    await converter.load()
    converter.applyCoverage(functions)
    const child = libCoverage.createFileCoverage(converter.toIstanbul()[join(root, name)]).getLineCoverage()
    for (const [line, hits] of Object.entries(child)) if (hits > 0 && line in lines[name]) lines[name][line] += hits
  }
}

/** Line coverage per file: `{ file: { covered, total, uncovered: [line, ...] } }`. */
const js = {}
for (const name of FILES) {
  const uncovered = Object.entries(lines[name]).filter(([, hits]) => hits === 0).map(([line]) => Number(line))
  const total = Object.keys(lines[name]).length
  js[name] = { covered: total - uncovered.length, total, uncovered }
}
const pct = ({ covered, total }) => (total > 0 ? (100 * covered) / total : 0)
/** `1-3, 7` for `[1, 2, 3, 7]`. */
const ranges = (lines) =>
  lines
    .reduce((acc, l) => (acc.length && acc.at(-1)[1] === l - 1 ? (acc.at(-1)[1] = l, acc) : [...acc, [l, l]]), [])
    .map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`))
    .join(', ')
console.log('\nV8 line coverage (vitest workers and child processes):\n')
if (partial.length > 0) console.log(`(${partial.length} child process file(s) empty or cut short, not counted: ${partial.join(', ')})\n`)
console.log('| file | lines | covered | uncovered lines |\n|---|---:|---:|---|')
for (const [name, c] of Object.entries(js)) console.log(`| ${name} | ${c.total} | ${pct(c).toFixed(2)}% | ${ranges(c.uncovered)} |`)

// Rust, per file, from cargo llvm-cov's JSON summary.
const rust = {}
for (const { filename, summary } of JSON.parse(readFileSync(join(dir, 'rust.json'), 'utf8')).data[0].files) {
  rust[filename.replace(root, '')] = { covered: summary.lines.covered, total: summary.lines.count }
}

// The floors: docs/maintainers.md's "Coverage" table (`| \`file\` | floor % | why |`); every other file, 100 %.
const doc = readFileSync(join(root, 'docs', 'maintainers.md'), 'utf8')
const section = doc.slice(doc.indexOf('## Coverage'), doc.indexOf('\n## ', doc.indexOf('## Coverage') + 3))
const floors = new Map([...section.matchAll(/^\| `([^`]+)` \| (\d+(?:\.\d+)?) % \|/gm)].map(([, file, floor]) => [file, Number(floor)]))
const measured = { ...rust, ...js }
const below = Object.entries(measured)
  .filter(([file, c]) => pct(c) + 1e-9 < (floors.get(file) ?? 100))
  .map(([file, c]) => `${file}: ${pct(c).toFixed(2)}% < ${floors.get(file) ?? 100}%`)
const stale = [...floors.keys()].filter((f) => !(f in measured))
if (stale.length > 0) below.push(`docs/maintainers.md lists files that are not measured: ${stale.join(', ')}`)
if (below.length > 0) {
  console.error(`\ncoverage: below the floors of docs/maintainers.md: ${below.join('; ')}`)
  if (flag === '--gate') process.exit(1)
} else {
  console.log(`\ncoverage: every file at or above its floor (docs/maintainers.md "Coverage": ${floors.size} listed, the other ${Object.keys(measured).length - floors.size} at 100 %)`)
}
