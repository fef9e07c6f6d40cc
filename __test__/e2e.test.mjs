// End to end: the shipped dsh-base + dsh-headless 0.1.0-rc.8 composition, booted with a keyless mock
// model and this package mounted BY NAME from its packed install (e2e/node_modules, filled from the
// `npm pack` tarballs by scripts/test.sh), inside a pane of a private tmux server, with the
// composition's own sandboxed `ctx.shell`. One agent, three turns; the window is renamed before
// turn 3. Everything asserted comes from the persisted session log.
import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const e2eDir = fileURLToPath(new URL('../e2e/', import.meta.url))
const installed = `${e2eDir}node_modules/@deepseek-ai/dsh-tmux-context/package.json`

describe('e2e: the real harness in a real tmux pane', () => {
  it('mounts the packed native package by name', () => {
    expect(existsSync(installed), 'e2e is not installed: run `npm test` (scripts/test.sh installs it)').toBe(true)
    const pkg = JSON.parse(readFileSync(installed, 'utf8'))
    expect(pkg.version).toMatch(/native/)
    expect(existsSync(`${e2eDir}node_modules/@deepseek-ai/dsh-tmux-context-linux-x64-gnu/dsh-tmux-context.linux-x64-gnu.node`)).toBe(true)
  })

  it('reads on turn 1, stays quiet on turn 2, reads the renamed window on turn 3', async () => {
    const { runE2E } = await import('../e2e/run.mjs')
    const report = await runE2E({ turns: 3, renameBefore: 3 })
    const failed = report.checks.filter((c) => !c.pass)
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([])
    expect(report.ok).toBe(true)
    const [t1, t2, t3] = report.turns
    expect(t1.completed && t2.completed && t3.completed).toBe(true)
    const { session, window, paneId, paneIndex, windowIndex } = report.tmux
    expect(t1.readings).toHaveLength(1)
    expect(t1.readings[0]).toMatch(/^tmux location \(turn 1\):\n/)
    expect(t1.readings[0]).toContain(`session ${session}, window ${windowIndex} ${JSON.stringify(window)}, pane ${paneIndex} ${paneId}\n`)
    expect(t1.readingIndexAfterStepStart).toBe(true)
    expect(t1.readingBeforeUserMessage).toBe(true)
    expect(t2.readings).toEqual([])
    expect(t3.readings).toHaveLength(1)
    expect(t3.readings[0]).toMatch(/^tmux location \(turn 3\):\n/)
    expect(t3.readings[0]).toContain(JSON.stringify(report.tmux.windowRenamed.to))
    expect(t3.readingIndexAfterStepStart).toBe(true)
    expect(t3.readingBeforeUserMessage).toBe(true)
  }, 180_000)
})
