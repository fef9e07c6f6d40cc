// Vitest setup for every suite: property tests replay a reported failure from its seed.
// fast-check prints `seed` and `path` when a property fails; run the suite again with
//   FC_SEED=<seed> FC_PATH=<path> npx vitest run <file>
// to replay exactly that counterexample (narrow the run to that test with `-t`).
import fc from 'fast-check'

const seed = process.env.FC_SEED
const path = process.env.FC_PATH
fc.configureGlobal({
  ...(seed !== undefined ? { seed: Number(seed) } : {}),
  ...(path !== undefined ? { path } : {}),
})

// `npm run coverage`: child processes write V8 coverage where scripts/coverage.sh collects it
// (vitest keeps NODE_V8_COVERAGE itself out of its workers, so it comes under another name).
if (process.env.TMUX_CONTEXT_V8_COVERAGE) process.env.NODE_V8_COVERAGE = process.env.TMUX_CONTEXT_V8_COVERAGE
