// Issue 38 in real tmux: no pane can stall a step or flood the model (40 panes, and the 100,000-character
// name with panes on, also run on every tmux build: real-tmux-matrix.test.mjs). The plugin runs as a pane's
// own process (the pane probe) while the test makes tmux report what a hostile session could: a
// 100,000-character window name, a sibling whose argv[0] is 120,000 characters, 40 panes, a pane
// moved between two windows of a grouped session while the query runs, and variables that name
// another server or no pane. Each test fails on the code before the issue.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { TmuxServer, TurnProbe, cutField, hasTmux, until, waitForJson } from './tmux.mjs'

const shellQuote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`


describe.skipIf(!hasTmux)('in real tmux, bounded readings (issue 38)', () => {
  // With panes: true (a sibling's 120,000-character argv[0] too), the matrix runs it on every tmux build.
  it('a 100,000-character window name and a sibling’s 120,000-character argv[0]: a reading at once, its three lines, the name at most 200 characters (panes: false)', async () => {
    const server = new TmuxServer()
    try {
      const probe = new TurnProbe(server, { impl: 'native', config: { panes: false }, turns: 2 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      server.renameWindow(agent, 'w'.repeat(100_000))
      expect(server.show(agent, '#{window_name}')).toHaveLength(100_000)
      const sibling = server.splitRunningAs(agent, `$(head -c 120000 /dev/zero | tr '\\0' a)`)
      await until(() => server.show(sibling, '#{pane_current_command}').length === 120_000, 'the sibling runs the long argv[0]')
      await probe.ready(1)

      const first = await probe.turn(1)
      expect(first.debug.join('\n')).not.toContain('did not answer')
      expect(first.injected).toBe(true)
      expect(Buffer.byteLength(first.reading)).toBeLessThanOrEqual(8192)
      const lines = first.reading.split('\n')
      const window = /^session main, window 0 (".*), pane 0 (%\d+)$/.exec(lines[1])
      expect(window?.[2]).toBe(agent)
      const name = cutField(window[1])
      expect(window[1].length).toBeLessThanOrEqual(200)
      expect(name.kept).toBe('w'.repeat(name.kept.length))
      expect(name.kept.length).toBeGreaterThan(150)
      // tmux cut the name before printing it (issue 43): how much, it does not say.
      expect(name.cut).toBeUndefined()
      expect(first.outputs[0].stdout.length).toBeLessThan(4_000)
      expect(lines).toHaveLength(3)
      // Nothing changed: no reading, and tmux's answer is still read.
      const second = await probe.turn(2)
      expect(second.injected).toBe(false)
      expect(second.runs).toBe(1)
      expect(second.debug).toEqual([])
    } finally {
      server.kill()
    }
  }, 60_000)

  for (const panes of [false, true]) {
    it(`65 panes tiled, resized across the length at which the layout is shown as its pane tree: no reading after the first (issue 43; panes: ${panes})`, async () => {
      const server = new TmuxServer()
      try {
        const probe = new TurnProbe(server, { impl: 'native', config: { panes }, turns: 7 })
        const { paneId: agent } = server.newSessionRunning('main', probe.command, { x: 400, y: 200 })
        server.tmux('set-option', '-t', 'main', 'window-size', 'manual')
        for (let i = 1; i < 65; i++) {
          server.tmux('split-window', '-d', '-t', agent, 'sleep 600')
          server.tmux('select-layout', '-t', agent, 'tiled')
        }
        await until(() => server.tmux('list-panes', '-t', agent, '-F', '#{pane_current_command}').split('\n').filter((c) => c === 'sleep').length === 64, 'the panes run sleep')
        await probe.ready(1)
        const layouts = []
        const turns = []
        // A resize, nothing, three more resizes, nothing; then a pane closed: news.
        for (const [k, size] of [[1], [2, '300x100'], [3], [4, '200x60'], [5, '150x50'], [6, '300x100'], [7]]) {
          if (k === 7) server.tmux('kill-pane', '-t', server.tmux('list-panes', '-t', agent, '-F', '#{pane_id}').split('\n').at(-1))
          if (size) {
            const [x, y] = size.split('x')
            server.tmux('resize-window', '-t', agent, '-x', x, '-y', y)
            await until(() => server.show(agent, '#{window_width}x#{window_height}') === size, `the window ${size}`)
          }
          layouts.push(server.show(agent, '#{window_layout}').length)
          turns.push(await probe.turn(k))
        }
        // The layout crosses 1,024 characters, where it is shown as its pane tree, both ways.
        expect(layouts.some((n) => n > 1024) && layouts.some((n) => n <= 1024)).toBe(true)
        expect(turns.map((t) => t.injected)).toEqual([true, false, false, false, false, false, true])
        expect(turns.every((t) => t.runs === 1)).toBe(true)
      } finally {
        server.kill()
      }
    }, 120_000)
  }

  it('splits nested 80 deep (tmux builds them): a resize is no news (from a break-in: 64 was the parser\'s depth)', async () => {
    const server = new TmuxServer()
    try {
      const probe = new TurnProbe(server, { impl: 'native', config: {}, turns: 2 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command, { x: 400, y: 200 })
      for (let i = 0; i < 80; i++) server.tmux('split-window', i % 2 ? '-v' : '-h', '-l', '2', '-d', '-t', agent, 'sleep 600')
      await probe.ready(1)
      expect((await probe.turn(1)).injected).toBe(true)
      server.tmux('resize-window', '-t', agent, '-x', '390', '-y', '190')
      await until(() => server.show(agent, '#{window_width}') === '390', 'the window resized')
      expect(await probe.turn(2)).toMatchObject({ injected: false, runs: 1 })
    } finally {
      server.kill()
    }
  }, 60_000)

  it('a pane moved between two windows of a grouped session while the query runs never reads as a mix of the two', async () => {
    const server = new TmuxServer()
    let mover
    try {
      const turns = 30
      const probe = new TurnProbe(server, { impl: 'native', config: {}, turns })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      server.tmux('rename-window', '-t', agent, 'A')
      server.tmux('split-window', '-d', '-t', agent, 'sleep 600') // keeps window A when the agent's pane leaves it
      server.tmux('new-window', '-d', '-t', 'main:5', '-n', 'B', 'sleep 600')
      server.tmux('new-session', '-d', '-t', 'main', '-s', 'view') // grouped: the same windows in a second session
      await probe.ready(1)
      const moves = join(server.dir, 'moves')
      writeFileSync(moves, '')
      const tmux = server.clientCommand()
      mover = spawn('sh', ['-c', `while :; do ${tmux} move-pane -d -s ${agent} -t main:5 && ${tmux} move-pane -d -s ${agent} -t main:0 && echo >> ${shellQuote(moves)}; done`], { stdio: 'ignore' })
      await until(() => readFileSync(moves, 'utf8').length > 0, 'the pane moving')
      const readings = []
      const moved = () => readFileSync(moves, 'utf8').length
      for (let k = 1; k <= turns; k++) {
        // The pane moves on while each query runs; each turn starts after one more move, whatever the two speeds.
        const before = moved()
        await until(() => moved() > before, `a move before turn ${k}`)
        const record = await probe.turn(k)
        if (record.injected) readings.push(record.reading.split('\n')[1])
      }
      mover.kill()
      expect(readings.length).toBeGreaterThanOrEqual(1)
      const mixed = readings.filter((line) => !/^session main, window (0 "A"|5 "B"), pane \d %\d+$/.test(line))
      expect(mixed).toEqual([])
    } finally {
      mover?.kill()
      server.kill()
    }
  }, 120_000)

  it('the reasons name what happened: $TMUX naming another server, $TMUX_PANE empty or not a pane id', async () => {
    const server = new TmuxServer()
    const other = new TmuxServer()
    try {
      other.newSession('elsewhere')
      // The first case's probe is %1 of `server` (after `keep`): `other` has a %1 too, so that its
      // query reaches the tty check rather than a pane tmux may not find.
      other.tmux('split-window', '-d', '-t', 'elsewhere', 'sleep 600')
      // Holds the server (and keeps dead panes) while each probe ends: a server left with no session
      // exits, and the next case's new-session could meet it exiting ("server exited unexpectedly").
      server.newSession('keep')
      const cases = [
        [{ TMUX: `${other.socketPath},1,0` }, 'no pane of the tmux server that $TMUX names'],
        [{ TMUX_PANE: '' }, '$TMUX_PANE is set but empty'],
        [{ TMUX_PANE: 'main:0.0' }, '$TMUX_PANE is not a pane id'],
      ]
      for (const [shellEnv, words] of cases) {
        const probe = new TurnProbe(server, { impl: 'native', config: {}, shellEnv, turns: 1 })
        server.newSessionRunning(`s${cases.findIndex((c) => c[0] === shellEnv)}`, probe.command)
        const record = await probe.turn(1)
        expect(record.injected).toBe(false)
        expect(record.warnings).toEqual([])
        expect(record.debug.join('\n'), JSON.stringify(shellEnv)).toContain(words)
      }
    } finally {
      server.kill()
      other.kill()
    }
  }, 60_000)
})

// rc.8's own executor keeps only the last 64 KB of stdout unless the request asks for more; the suites'
// executor keeps it all. The break-in of issue 38 forged a reading through that tail.
const executorProbe = fileURLToPath(new URL('../e2e/executor-probe.mjs', import.meta.url))
const noBashLocal = existsSync(fileURLToPath(new URL('../e2e/node_modules/@deepseek-ai/dsh-bash-local', import.meta.url)))
  ? undefined
  : 'rc.8’s executor is installed in e2e/ by `npm test` and `npm run demo` (scripts/install.sh)'

describe.skipIf(!hasTmux || noBashLocal)(`on rc.8’s own executor (dsh-bash-local), tmux’s whole answer or none${noBashLocal ? ` (skipped: ${noBashLocal})` : ''}`, () => {
  /** The executor probe as the process of a pane of `server` set up by `prepare(agentPane)`; its result. */
  async function probeIn(server, prepare, config) {
    const { paneId: agent } = server.newSessionRunning('main', 'sleep 600')
    await prepare(agent)
    const spec = join(server.dir, 'executor-probe.json')
    const out = join(server.dir, 'executor-probe-out.json')
    writeFileSync(spec, JSON.stringify({ config, turns: 2, out }))
    server.tmux('respawn-pane', '-k', '-t', agent, `exec ${shellQuote(process.execPath)} ${shellQuote(executorProbe)} ${shellQuote(spec)}`)
    const result = await waitForJson(out, 60_000)
    expect(result.error).toBeUndefined()
    return { agent, turns: result.turns }
  }

  it('a 100,000-character window name: tmux cuts it before printing (issue 43), so its answer stays small, and the reading says so', async () => {
    const server = new TmuxServer()
    try {
      const { agent, turns } = await probeIn(server, (agent) => server.renameWindow(agent, 'w'.repeat(100_000)), {})
      expect(turns[0].ran).toMatchObject({ exitCode: 0, truncated: false })
      expect(turns[0].ran.bytes).toBeLessThan(2_000)
      const lines = turns[0].reading.split('\n')
      expect(lines).toHaveLength(3)
      expect(lines[1]).toMatch(new RegExp(`^session main, window 0 "w+" \\[cut: more characters at the end\\], pane 0 ${agent}$`))
      expect(turns[1].reading).toBeNull()
    } finally {
      server.kill()
    }
  }, 60_000)

  it('a sibling’s argv[0] made to start the executor’s kept tail cannot forge a reading', async () => {
    const server = new TmuxServer()
    try {
      const forged = `$(printf 'evil\\\\tpwned\\\\tFAKE\\\\t7\\\\t%%%%666\\\\t'; head -c 63914 /dev/zero | tr '\\0' 1)`
      const { agent, turns } = await probeIn(server, async (agent) => {
        const pane = server.splitRunningAs(agent, forged)
        await until(() => server.show(pane, '#{pane_current_command}').startsWith('evil'), 'the sibling runs the forged argv[0]')
      }, { panes: true })
      const lines = turns[0].reading.split('\n')
      expect(lines[1]).toMatch(new RegExp(`^session main, window 0 ".*", pane 0 ${agent}$`))
      expect(lines.filter((l) => l.startsWith('session ') || l.startsWith('window active='))).toHaveLength(2)
      expect(Buffer.byteLength(turns[0].reading)).toBeLessThanOrEqual(8192)
      expect(lines.at(-1)).toMatch(/^pane 1 %\d+ command "evil\\\\tpwned.*" \[cut: more characters at the end\] path /)
    } finally {
      server.kill()
    }
  }, 60_000)

  /** `count` siblings whose argv[0] is 131,000 `$` (which `q:` doubles), tiled in the agent's window. */
  async function dollarSiblings(server, agent, count) {
    const panes = Array.from({ length: count }, () => server.splitRunningAs(agent, `$(head -c 131000 /dev/zero | tr '\\0' '$')`))
    await until(() => panes.every((p) => server.show(p, '#{pane_current_command}').length === 131_000), 'the siblings run', 60_000)
    return panes
  }

  it('8 siblings with 131,000-character commands: tmux cuts each before printing, so a bounded reading comes (issue 43)', async () => {
    const server = new TmuxServer()
    try {
      const { turns } = await probeIn(server, (agent) => dollarSiblings(server, agent, 8), { panes: true })
      expect(turns[0].ran).toMatchObject({ exitCode: 0, truncated: false })
      expect(turns[0].ran.bytes).toBeLessThan(64_000)
      expect(Buffer.byteLength(turns[0].reading)).toBeLessThanOrEqual(8192)
      const rows = turns[0].reading.split('\n').filter((l) => l.startsWith('pane '))
      expect(rows).toHaveLength(9)
      for (const row of rows.slice(1)) expect(row).toMatch(/^pane \d+ %\d+ command "\$+" \[cut: more characters at the end\] path "[^"]*"$/)
      expect(turns[1].reading).toBeNull()
    } finally {
      server.kill()
    }
  }, 120_000)

  it('100 such siblings: a bounded reading on each change, and never "did not answer" while tmux answers (issue 43)', async () => {
    const server = new TmuxServer()
    try {
      const { paneId: agent } = server.newSessionRunning('main', 'sleep 600', { x: 400, y: 200 })
      const siblings = await dollarSiblings(server, agent, 100)
      const spec = join(server.dir, 'executor-probe.json')
      const out = join(server.dir, 'executor-probe-out.json')
      const go = join(server.dir, 'go')
      writeFileSync(spec, JSON.stringify({ config: { panes: true }, turns: 4, out, go }))
      server.tmux('respawn-pane', '-k', '-t', agent, `exec ${shellQuote(process.execPath)} ${shellQuote(executorProbe)} ${shellQuote(spec)}`)
      const turn = async (k) => {
        await until(() => existsSync(`${out}.ready-${k}`), `the probe ready for turn ${k}`, 60_000)
        writeFileSync(`${go}-${k}`, '')
        return waitForJson(`${out}.turn-${k}`, 60_000)
      }
      const records = [await turn(1), await turn(2)]
      server.tmux('kill-pane', '-t', siblings[0])
      records.push(await turn(3))
      const split = server.tmux('split-window', '-d', '-t', agent, '-P', '-F', '#{pane_id}', 'sleep 600')
      records.push(await turn(4))
      for (const r of records) {
        expect(r.ran).toMatchObject({ exitCode: 0, truncated: false })
        expect(r.logged.join('\n')).not.toContain('did not answer')
      }
      expect(records.map((r) => r.reading !== null)).toEqual([true, false, true, true])
      for (const r of [records[0], records[2], records[3]]) {
        expect(Buffer.byteLength(r.reading)).toBeLessThanOrEqual(8192)
        expect(r.reading).toMatch(/\n\[cut: \d+ more panes not listed\]$/)
      }
      // Listed and counted: every pane of the window, the agent's own among those listed.
      const total = (reading) => reading.split('\n').filter((l) => l.startsWith('pane ')).length + Number(/(\d+) more panes not listed\]$/.exec(reading)[1])
      expect([records[0], records[2], records[3]].map((r) => total(r.reading))).toEqual([101, 100, 101])
      for (const r of [records[0], records[2], records[3]]) expect(r.reading).toContain(`pane 0 ${agent} (this agent) command `)
      expect(records[3].reading).not.toContain(`${siblings[0]} command`)
      console.log(`100 siblings of 131,000 characters, rc.8's executor: steps of ${records.map((r) => r.durationMs.toFixed(0)).join(', ')} ms; answers of ${records.map((r) => r.ran.bytes).join(', ')} bytes; ${split} split before turn 4`)
    } finally {
      server.kill()
    }
  }, 240_000)
})
