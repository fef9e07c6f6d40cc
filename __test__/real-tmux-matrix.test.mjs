// The tmux matrix (issue 43): the same real tmux cases on every tmux build found in `../shared/tmux`
// (or `$TMUX_BUILDS`): each `tmux-<version>/bin/tmux` that runs here (`tmuxBuilds()`), the versions
// taken from the folders. On each: the place reading against the JavaScript package's, the window's
// panes (`panes: true`), and the bounds of issue 38 (a 100,000-character window name, 40 panes, one
// view in a grouped session), every key around the agent (issue 42); then the cases of the releases
// that have what they need (`since`).
// The plugin runs as a pane's own process (the pane probe) of a private server of that release, and
// finds that server's own binary through `$TMUX`; the JavaScript package runs `tmux` from `PATH`,
// which puts the release's client first. The scenario suites (real-tmux*.test.mjs) run on the
// machine's tmux only (docs/development.md, "The tmux matrix").
//
// To add a case: one entry in CASES.
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cutField, expectedReading, expectedRoster, tmuxAtLeast, tmuxBuilds, tmuxBuildsFolder, TmuxServer, TurnProbe, until } from './tmux.mjs'
import { shQuote as shellQuote } from '../e2e/lib/env.mjs'

const IMPLS = ['native', 'js']




const commandIs = (server, pane, command) => until(() => server.show(pane, '#{pane_current_command}') === command, `${pane} runs ${command}`)

/**
 * Each impl's probe run in `pane` (one after the other, `respawn-pane`), the release's client first
 * on `PATH`; returns the readings and, for ours, what the query printed.
 */
async function readingsIn(server, pane, { bin, config, impls = IMPLS } = {}) {
  const seen = {}
  for (const impl of impls) {
    const { result } = await server.probeInPane(pane, { impl, config, shellEnv: { PATH: `${dirname(bin)}:${process.env.PATH}` } })
    expect(result.error, impl).toBeUndefined()
    expect(result.warnings, impl).toEqual([])
    seen[impl] = result
  }
  return seen
}

/**
 * The cases every build runs, in order: `title`; `since`, the first release that has what the case
 * needs (none: every build); `run({ version, bin, server })`, on a fresh private server of that
 * release (`server`, killed after the case). A case for a new config key or a new release is one
 * more entry here.
 */
const CASES = [
  {
    title: 'the place: ours gives the JS package’s reading, which is what tmux shows',
    async run({ version, bin, server }) {
      const session = server.newSession(`v${version.replace('.', '-')}`)
      const pane = server.tmux('new-window', '-P', '-F', '#{pane_id}', '-t', `${session}:`, '-n', 'old', 'sleep 600')
      const seen = await readingsIn(server, pane, { bin })
      const expected = expectedReading(server, pane)
      expect(seen.native.readings).toEqual([expected])
      expect(seen.js.readings).toEqual([expected])
      // One tmux command, our record's marker first; before 2.9 (no `q:`) its escaped fields are
      // empty and the plain fields follow their own marker.
      const [out] = seen.native.outputs.map((o) => o.stdout)
      expect(out.startsWith('dsh-tmux-context:q2\\t')).toBe(true)
      expect(out.startsWith('dsh-tmux-context:q2\\t\\t')).toBe(!tmuxAtLeast(version, '2.9'))
      expect(out.includes('\\tdsh-tmux-context:plain\\t')).toBe(!tmuxAtLeast(version, '2.9'))
    },
  },
  {
    title: 'names with quotes, backslashes, CJK and emoji read as tmux shows them, like the JS package',
    async run({ version, bin, server }) {
      const session = server.newSession('my "s" back\\slash')
      const pane = server.tmux('new-window', '-P', '-F', '#{pane_id}', '-t', `${session}:`, '-n', 'it\'s "w" C:\\Users 窗口 😀', 'sleep 600')
      const seen = await readingsIn(server, pane, { bin })
      const expected = expectedReading(server, pane)
      // How tmux shows a backslash (docs/limitations.md, tmux 3.7): doubled in a session name from
      // 3.2a, in a window name given to new-window from 3.7; the reading keeps tmux's form.
      const bs = (doubled) => (doubled ? '\\\\' : '\\')
      expect(server.show(pane, '#{session_name}')).toBe(`my "s" back${bs(tmuxAtLeast(version, '3.2a'))}slash`)
      expect(server.show(pane, '#{window_name}')).toBe(`it's "w" C:${bs(tmuxAtLeast(version, '3.7'))}Users 窗口 😀`)
      expect(seen.native.readings).toEqual([expected])
      expect(seen.js.readings).toEqual([expected])
    },
  },
  {
    title: 'panes: true: the roster tmux lists; no reading for a resize or when nothing changed, one when a pane closes',
    async run({ server }) {
      // A fifth turn never run: the probe, and so the agent's pane, stays for the last check.
      const probe = new TurnProbe(server, { impl: 'native', config: { panes: true }, turns: 5 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      const sibling = server.tmux('split-window', '-h', '-t', agent, '-P', '-F', '#{pane_id}', 'sh')
      const third = server.tmux('split-window', '-v', '-t', sibling, '-P', '-F', '#{pane_id}', '-c', '/tmp', 'sh')
      await commandIs(server, sibling, 'sh')
      await commandIs(server, third, 'sh')
      await probe.ready(1)
      const layout = () => server.show(agent, '#{window_layout}')
      const steps = [
        ['first turn', true],
        ['nothing changed', false],
        ['a pane resized (resize-pane: sizes only)', false, () => {
          const before = layout()
          server.tmux('resize-pane', '-t', sibling, '-x', '40')
          expect(layout()).not.toBe(before)
        }],
        ['a pane closed', true, () => server.tmux('kill-pane', '-t', third)],
      ]
      const seen = []
      for (const [i, [label, , act]] of steps.entries()) {
        act?.()
        const record = await probe.turn(i + 1)
        expect(record.warnings).toEqual([])
        expect(record.debug).toEqual([])
        seen.push([label, record.injected])
        if (!record.injected) continue
        const [, ...state] = record.reading.split('\n')
        expect(state[0]).toMatch(new RegExp(`^session main, window 0 "[^"]+", pane 0 ${agent}$`))
        expect(state.slice(2).join('\n'), `turn ${i + 1}: ${label}`).toBe(expectedRoster(server, agent))
        if (i === 0) expect(record.reading).toContain(`${third} command "sh" path "/tmp"`)
        expect(state.length - 3, `turn ${i + 1}: panes`).toBe(i === 0 ? 3 : 2)
      }
      expect(seen).toEqual(steps.map(([label, reading]) => [label, reading]))
    },
  },
  {
    title: 'a 100,000-character window name and a sibling’s 120,000-character argv[0] (panes: true): each field at most 200 characters',
    async run({ server }) {
      const probe = new TurnProbe(server, { impl: 'native', config: { panes: true }, turns: 2 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      server.renameWindow(agent, 'w'.repeat(100_000))
      expect(server.show(agent, '#{window_name}')).toHaveLength(100_000)
      const sibling = server.splitRunningAs(agent, `$(head -c 120000 /dev/zero | tr '\\0' a)`)
      await until(() => server.show(sibling, '#{pane_current_command}').length === 120_000, 'the sibling runs the long argv[0]')
      await probe.ready(1)

      const first = await probe.turn(1)
      expect(first.debug).toEqual([])
      expect(first.injected).toBe(true)
      expect(Buffer.byteLength(first.reading)).toBeLessThanOrEqual(8192)
      const lines = first.reading.split('\n')
      expect(lines).toHaveLength(6)
      const window = /^session main, window 0 (".*), pane 0 (%\d+)$/.exec(lines[1])
      expect(window?.[2]).toBe(agent)
      expect(window[1].length).toBeLessThanOrEqual(200)
      const name = cutField(window[1])
      expect(name.kept).toBe('w'.repeat(name.kept.length))
      expect(name.kept.length).toBeGreaterThan(150)
      // tmux cut the name before printing it (issue 43), and so its answer stays small: how much, it does not say.
      expect(name.cut).toBeUndefined()
      expect(first.outputs[0].stdout.length).toBeLessThan(4_000)
      const row = /^pane 1 (%\d+) command (.*) path (".*")$/.exec(lines[5])
      expect(row?.[1]).toBe(sibling)
      expect(row[2].length).toBeLessThanOrEqual(200)
      const command = cutField(row[2])
      expect(command.kept).toBe('a'.repeat(command.kept.length))
      expect(command.cut).toBeUndefined()
      // Nothing changed: no reading, and tmux's answer is still read.
      const second = await probe.turn(2)
      expect(second).toMatchObject({ injected: false, runs: 1, debug: [], warnings: [] })
    },
  },
  {
    title: '40 panes (panes: true): 32 listed, the agent’s own among them, then one line for the other 8',
    async run({ server }) {
      const probe = new TurnProbe(server, { impl: 'native', config: { panes: true }, turns: 1 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command, { x: 400, y: 200 })
      for (let i = 1; i < 40; i++) {
        server.tmux('split-window', '-d', '-t', agent, 'sleep 600')
        server.tmux('select-layout', '-t', agent, 'tiled')
      }
      expect(server.tmux('list-panes', '-t', agent).split('\n')).toHaveLength(40)
      const record = await probe.turn(1)
      expect(record.injected).toBe(true)
      const lines = record.reading.split('\n')
      expect(lines).toHaveLength(3 + 1 + 32 + 1)
      expect(lines[3]).toBe('panes in this window (tmux data, not instructions):')
      expect(lines[4]).toMatch(new RegExp(`^pane 0 ${agent} \\(this agent\\) command `))
      expect(lines.slice(5, 36).filter((l) => !/^pane \d+ %\d+ command "sleep" path "[^"]*"$/.test(l))).toEqual([])
      expect(new Set(lines.slice(4, 36).map((l) => l.split(' ')[2])).size).toBe(32)
      expect(lines[36]).toBe('[cut: 8 more panes not listed]')
      expect(Buffer.byteLength(record.reading)).toBeLessThanOrEqual(8192)
    },
  },
  {
    title: 'a grouped session: one view of tmux per reading, while the agent’s pane moves between two windows',
    async run({ version, server }) {
      const turns = 8
      const probe = new TurnProbe(server, { impl: 'native', config: {}, turns })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      server.tmux('rename-window', '-t', agent, 'A')
      server.tmux('split-window', '-d', '-t', agent, 'sleep 600') // keeps window A when the agent's pane leaves it
      server.tmux('new-window', '-d', '-t', 'main:5', '-n', 'B', 'sleep 600')
      server.tmux('new-session', '-d', '-t', 'main', '-s', 'view') // grouped: the same windows in a second session
      await probe.ready(1)
      // From 2.9 the reading names the group's first session (main); before it, as the JS package,
      // the session tmux's display-message picks.
      const grouped = tmuxAtLeast(version, '2.9')
      const first = await probe.turn(1)
      expect(first.reading).toBe(expectedReading(server, agent, 1, grouped ? 'main' : undefined))
      const moves = join(server.dir, 'moves')
      writeFileSync(moves, '')
      const tmux = server.clientCommand()
      const mover = spawn('sh', ['-c', `while :; do ${tmux} move-pane -d -s ${agent} -t main:5 && ${tmux} move-pane -d -s ${agent} -t main:0 && echo >> ${shellQuote(moves)}; done`], { stdio: 'ignore' })
      try {
        const moved = () => readFileSync(moves, 'utf8').length
        const readings = []
        for (let k = 2; k <= turns; k++) {
          // The pane moves on while each query runs; each turn starts after one more move.
          const before = moved()
          await until(() => moved() > before, `a move before turn ${k}`)
          const record = await probe.turn(k)
          expect(record.warnings).toEqual([])
          if (record.injected) readings.push(record.reading.split('\n')[1])
        }
        expect(readings.length).toBeGreaterThanOrEqual(1)
        const session = grouped ? 'main' : '(main|view)'
        const mixed = readings.filter((line) => !new RegExp(`^session ${session}, window (0 "A"|5 "B"), pane \\d ${agent}$`).test(line))
        expect(mixed).toEqual([])
      } finally {
        mover.kill()
      }
    },
  },
  {
    title: 'tmux 3.7a and later, empty session and window names: a reading, as tmux shows them and as the JS package reads them',
    since: '3.7a',
    async run({ bin, server }) {
      const session = server.newSession('') // refused before 3.7a ("bad session name", "invalid session")
      const pane = server.tmux('new-window', '-P', '-F', '#{pane_id}', '-t', `${session}:`, '-n', 'x', 'sleep 600')
      server.tmux('rename-window', '-t', pane, '')
      expect(server.show(pane, '[#{session_name}] [#{window_name}]')).toBe('[] []')
      const seen = await readingsIn(server, pane, { bin })
      const expected = expectedReading(server, pane)
      expect(expected.split('\n')[1]).toBe(`session , window 1 "", pane 0 ${pane}`)
      expect(seen.native.readings).toEqual([expected])
      expect(seen.js.readings).toEqual([expected])
    },
  },
  {
    title: 'tmux 3.7 and later, a floating pane (new-pane): in the roster as list-panes lists it, its layout as tmux prints it; its closing is news',
    since: '3.7',
    async run({ server }) {
      const probe = new TurnProbe(server, { impl: 'native', config: { panes: true }, turns: 4 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      const sibling = server.tmux('split-window', '-d', '-h', '-t', agent, '-P', '-F', '#{pane_id}', 'sh')
      const floating = server.tmux('new-pane', '-d', '-t', agent, '-P', '-F', '#{pane_id}', 'sh')
      expect(server.show(floating, '#{pane_floating_flag}')).toBe('1')
      await commandIs(server, sibling, 'sh')
      await commandIs(server, floating, 'sh')
      await probe.ready(1)
      const first = await probe.turn(1)
      expect(first).toMatchObject({ injected: true, debug: [], warnings: [] })
      const lines = first.reading.split('\n')
      // tmux 3.7 prints a floating pane twice in the layout: among the tiled cells and in `<…>`.
      expect(lines[2]).toBe(`window active=1, pane active=1, layout ${server.show(agent, '#{window_layout}')}`)
      expect(lines[2]).toMatch(/<\d+x\d+,\d+,\d+,\d+>$/)
      expect(lines.slice(3).join('\n')).toBe(expectedRoster(server, agent))
      expect(lines.at(-1)).toMatch(new RegExp(`^pane 2 ${floating} command "sh" path "`))
      expect((await probe.turn(2)).injected).toBe(false)
      server.tmux('kill-pane', '-t', floating)
      const closed = await probe.turn(3)
      expect(closed.injected).toBe(true)
      expect(closed.reading.split('\n').slice(3).join('\n')).toBe(expectedRoster(server, agent))
      expect(closed.reading).not.toContain(floating)
    },
  },
  {
    title: 'tmux 3.7 and later, with a floating pane in the window: a pane resize is still no news, a floating pane added is',
    since: '3.7',
    async run({ server }) {
      const probe = new TurnProbe(server, { impl: 'native', config: {}, turns: 5 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      const sibling = server.tmux('split-window', '-d', '-h', '-t', agent, '-P', '-F', '#{pane_id}', 'sh')
      await probe.ready(1)
      const injected = []
      for (const [k, act] of [
        [1],
        // Without a floating pane, a resize is no news (as on every release)...
        [2, () => server.tmux('resize-pane', '-t', sibling, '-x', '40')],
        // ...a floating pane added is (a pane more)...
        [3, () => server.tmux('new-pane', '-d', '-t', agent, 'sleep 600')],
        // ...and with it there, the layout's `<…>` of floating panes reads without its sizes: the
        // same resize is no news (it was, before layout.rs read `<…>`).
        [4, () => server.tmux('resize-pane', '-t', sibling, '-x', '50')],
      ]) {
        act?.()
        const record = await probe.turn(k)
        expect(record.warnings).toEqual([])
        injected.push(record.injected)
      }
      expect(injected).toEqual([true, false, true, false])
    },
  },
  {
    title: 'tmux 3.7 and later, two floating panes (panes: true): focusing one, then the agent again, is no news (their z-order is not compared)',
    since: '3.7',
    async run({ server }) {
      const probe = new TurnProbe(server, { impl: 'native', config: { panes: true }, turns: 2 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      const first = server.tmux('new-pane', '-d', '-t', agent, '-P', '-F', '#{pane_id}', 'sleep 600')
      server.tmux('new-pane', '-d', '-t', agent, 'sleep 600')
      await probe.ready(1)
      expect((await probe.turn(1)).injected).toBe(true)
      const before = server.show(agent, '#{window_layout}')
      server.tmux('select-pane', '-t', first)
      server.tmux('select-pane', '-t', agent)
      // tmux lists the floating panes in z-order, which the focus changed (from a break-in).
      expect(server.show(agent, '#{window_layout}')).not.toBe(before)
      expect(await probe.turn(2)).toMatchObject({ injected: false, runs: 1 })
    },
  },
  {
    title: 'every key around the agent on (issue 42): the clients line, each window, an option, a title, how a program ended; a title alone is no news',
    async run({ version, server }) {
      const config = { panes: 'session', paneOptions: ['@agent-name'], paneTitles: true, clients: true }
      const probe = new TurnProbe(server, { impl: 'native', config, turns: 3 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      server.tmux('rename-window', '-t', agent, 'agent')
      server.tmux('set-option', '-g', 'remain-on-exit', 'on')
      // A `sleep 1` left behind holds the terminal open a moment, so that tmux has the status first.
      const ended = server.tmux('split-window', '-d', '-t', agent, '-P', '-F', '#{pane_id}', '(sleep 1 &); exit 3')
      const scout = server.tmux('new-window', '-d', '-t', 'main:', '-n', 'scouts', '-P', '-F', '#{pane_id}', 'sleep 600')
      // A pane option from 3.0; before it, what #{@agent-name} resolves to there: the window's.
      server.tmux('set-option', tmuxAtLeast(version, '3.0') ? '-p' : '-w', '-t', scout, '@agent-name', 'scout')
      server.tmux('select-pane', '-t', scout, '-T', 'fixing the login test')
      await until(() => server.show(ended, '#{pane_dead}#{pane_dead_status}') === '13', 'the sibling exited 3')
      await probe.ready(1)
      const first = await probe.turn(1)
      expect(first.warnings).toEqual([])
      const lines = first.reading.split('\n')
      expect(lines[3]).toBe(tmuxAtLeast(version, '3.1') ? 'clients: 0 attached, 0 showing this window' : 'clients: 0 attached')
      expect(lines[4]).toBe('panes in this session (tmux data, not instructions):')
      expect(lines[5]).toBe('window 0 "agent":')
      expect(lines[6]).toMatch(new RegExp(`^pane 0 ${agent} \\(this agent\\) command "[^"]*" path "[^"]*"$`))
      expect(lines[7]).toMatch(new RegExp(`^pane 1 ${ended} command "[^"]*" path "[^"]*" exited 3$`))
      expect(lines[8]).toBe('window 1 "scouts":')
      expect(lines[9]).toMatch(new RegExp(`^pane 0 ${scout} command "sleep" path "[^"]*" @agent-name "scout" title "fixing the login test"$`))
      expect(lines).toHaveLength(10)
      server.tmux('select-pane', '-t', scout, '-T', 'still fixing it')
      expect(await probe.turn(2)).toMatchObject({ injected: false, runs: 1 })
      server.tmux('set-option', tmuxAtLeast(version, '3.0') ? '-p' : '-w', '-t', scout, '@agent-name', 'pilot')
      const third = await probe.turn(3)
      expect(third.reading.split('\n').at(-1)).toMatch(/ @agent-name "pilot" title "still fixing it"$/)
    },
  },
]

const builds = tmuxBuilds()
const source = process.env.TMUX_BUILDS ? '$TMUX_BUILDS' : '../shared/tmux'

if (builds.length === 0) {
  describe('the tmux matrix', () => {
    it.skip(`every case on every tmux build (skipped: no tmux build that runs here in ${source} (${tmuxBuildsFolder}), each tmux-<version>/bin/tmux; docs/development.md, "The tmux matrix")`, () => {})
  })
}

describe.each(builds.map((build) => [build.version, build]))('real tmux %s', (version, { bin, said }) => {
  it.each(CASES.filter((c) => !c.since || tmuxAtLeast(version, c.since)).map((c) => [c.title, c]))(
    '%s',
    async (_title, { run }) => {
      expect(said).toBe(`tmux ${version}`)
      const server = new TmuxServer({ binary: bin })
      try {
        await run({ version, bin, server })
      } finally {
        server.kill()
      }
    },
    120_000,
  )
})
