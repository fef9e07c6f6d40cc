// `node scripts/vitest-summary.mjs [--counts] <vitest JSON report>...`: the names of the tests that
// skipped (they say why), then one plain closing line with the counts of all the runs given
// (`vitest: N passed, N failed, N skipped`). --counts: the closing line only. A report that is
// missing (its run did not get that far) is named and counts nothing.
import { existsSync, readFileSync } from 'node:fs'

const counts = process.argv.includes('--counts')
const files = process.argv.slice(2).filter((a) => a !== '--counts')
const missing = files.filter((f) => !existsSync(f))
const runs = files.filter(existsSync).map((f) => JSON.parse(readFileSync(f, 'utf8')))
const skipped = runs.flatMap((r) =>
  r.testResults.flatMap((f) => f.assertionResults.filter((a) => ['pending', 'skipped', 'todo'].includes(a.status)).map((a) => a.fullName)),
)
if (!counts && skipped.length > 0) console.log('skipped:\n' + skipped.map((n) => '  - ' + n).join('\n'))
if (missing.length > 0) console.log(`no report (the run did not finish): ${missing.join(', ')}`)
const sum = (k) => runs.reduce((n, r) => n + r[k], 0)
console.log(`vitest: ${sum('numPassedTests')} passed, ${sum('numFailedTests')} failed, ${sum('numPendingTests') + sum('numTodoTests')} skipped`)
