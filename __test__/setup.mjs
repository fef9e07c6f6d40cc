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
