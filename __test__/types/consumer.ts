// A TypeScript consumer of the package, compiled with `tsc --noEmit` against the harness's own types.
import { Context } from '@deepseek-ai/cordis'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import InvariantRegistry from '@deepseek-ai/dsh-invariants'
import * as tmuxContext from '@deepseek-ai/dsh-tmux-context'
import { apply, Config, inject, name } from '@deepseek-ai/dsh-tmux-context'
import * as invariant from '@deepseek-ai/dsh-tmux-context/invariant'
import * as reference from 'dsh-tmux-context-js'

export async function compose(): Promise<void> {
  const ctx = new Context()
  await ctx.plugin(AgentRegistry)
  await ctx.plugin(InvariantRegistry)
  await ctx.plugin(tmuxContext, { refreshIntervalMs: 60_000, queryTimeoutMs: 2_000 })
  await ctx.plugin(invariant)
  const config: Config = { refreshIntervalMs: 0 }
  const validated: Config = Config(config)
  const result: void = apply(ctx, validated)
  const pluginName: 'tmux-context' = name
  const services: string[] = inject
  const dispose: Promise<() => void> = invariant.apply(ctx)
  // The JS package's surface is assignable to ours and back: a drop-in for its callers.
  const asReference: typeof reference.apply = apply
  const referenceConfig: reference.Config = { refreshIntervalMs: 1 }
  const ours: Config = referenceConfig
  void [result, pluginName, services, dispose, asReference, ours]
  // @ts-expect-error refreshIntervalMs is a number of milliseconds
  const wrong: Config = { refreshIntervalMs: '60000' }
  // @ts-expect-error queryTimeoutMs is a number of milliseconds
  const wrongTimeout: Config = { queryTimeoutMs: true }
  // The keys around the agent (issue 42): panes as a boolean or a scope, a list of option names, two flags.
  const around: Config[] = [
    { panes: true, paneOptions: ['@agent-name'], paneTitles: true, clients: true },
    { panes: 'window' },
    { panes: 'session', paneOptions: ['@role', '@task'] as const },
    { clients: true },
  ]
  // @ts-expect-error panes is true, false, "window" or "session"
  const wrongPanes: Config = { panes: 'pane' }
  // @ts-expect-error paneOptions is a list of names
  const wrongOptions: Config = { paneOptions: '@agent-name' }
  // @ts-expect-error paneTitles is a boolean
  const wrongTitles: Config = { paneTitles: 'yes' }
  // @ts-expect-error clients is a boolean
  const wrongClients: Config = { clients: 1 }
  void [wrong, wrongTimeout, around, wrongPanes, wrongOptions, wrongTitles, wrongClients]
}
