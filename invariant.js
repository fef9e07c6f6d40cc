// Invariant companion of @deepseek-ai/dsh-tmux-context: reserves the package name with the harness's
// invariant service. A reading is a per-turn snapshot of external tmux state, so there is no
// cross-event relation to check.
const PACKAGE_NAME = '@deepseek-ai/dsh-tmux-context'

/** Cordis companion plugin name. */
export const name = 'tmux-context-invariant'
/** Service required before the companion can reserve package ownership. */
export const inject = ['invariants']

const install = () => {}

/** Register this package's invariant companion; resolves to the registration's disposer. */
export const apply = (ctx) => Promise.resolve(ctx.invariants.register(PACKAGE_NAME, install))
