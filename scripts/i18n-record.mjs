// Records the git blob hashes of README.md and README.zh.md in README.i18n.yaml, after both sides
// were brought into step. The packaging test fails when either file changes without this record.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'

const hash = (f) => execFileSync('git', ['hash-object', f], { encoding: 'utf8' }).trim()
writeFileSync(
  'README.i18n.yaml',
  `# Translation pairing: the git blob hash of each README as of the last state in which both say the same.
# Both languages carry equal authority; after editing either side, bring the other along and re-record
# with: node scripts/i18n-record.mjs
README.md: ${hash('README.md')}
README.zh.md: ${hash('README.zh.md')}
`,
)
