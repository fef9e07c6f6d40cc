// Issue 42 in real tmux: what happens around the agent, told as it changes. The plugin runs as a
// pane's own process (the pane probe) through several turns of ONE session while the test does what
// a user or another agent does between turns: a sibling's program exits 3, another is killed by
// SIGTERM and respawned, a pane option is set, changed and unset, a title changes, a person attaches
// and detaches, and a second window is made, split, resized, selected and renamed. Each test fails on
// the code before the issue (the keys were unknown and the readings held none of this).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hasTmux, Terminals, TmuxServer, TurnProbe, until } from './tmux.mjs'

/** The roster line of `pane` in `reading`, if any. */
const rowOf = (reading, pane) => reading?.split('\n').find((l) => new RegExp(`^pane \\d+ ${pane}( |$)`).test(l))

describe.skipIf(!hasTmux)('in real tmux, what happens around the agent (issue 42)', () => {
  it('a sibling that exits 3 and one killed by SIGTERM end their rows so; a respawn is news, time passing is not', async () => {
    const server = new TmuxServer()
    try {
      const probe = new TurnProbe(server, { impl: 'native', config: { panes: true }, turns: 5 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      server.tmux('set-option', '-g', 'remain-on-exit', 'on')
      // tmux up to 3.6 may mark a pane dead (its terminal closed) before it has the status (its
      // process reaped), and then never shows one: the row reads "exited (status unknown)", as
      // docs/design.md says (2 runs in 12 of a plain `exit 3` here). So that this test reads a
      // status, each sibling leaves a `sleep 1` behind (not its child) that holds its terminal open a
      // moment after it ends: tmux reaps it first.
      const go = (name) => join(server.dir, name)
      const sibling = (name, end) =>
        server.tmux('split-window', '-d', '-t', agent, '-P', '-F', '#{pane_id}', `sh -c 'while [ ! -e ${go(name)} ]; do sleep 0.05; done; (sleep 1 &); ${end}'`)
      const exits = sibling('exit-now', 'exit 3')
      const killed = sibling('kill-now', 'kill -TERM $$')
      await until(() => [exits, killed].every((p) => server.show(p, '#{pane_current_command}') === 'sh'), 'the siblings run')
      await probe.ready(1)
      const first = await probe.turn(1)
      expect(first.injected).toBe(true)
      expect(rowOf(first.reading, exits)).toMatch(/ path "[^"]*"$/)

      writeFileSync(go('exit-now'), '')
      await until(() => server.show(exits, '#{pane_dead}#{pane_dead_status}') === '13', 'the sibling exited 3')
      const second = await probe.turn(2)
      expect(rowOf(second.reading, exits)).toMatch(/ path "[^"]*" exited 3$/)

      writeFileSync(go('kill-now'), '')
      await until(() => server.show(killed, '#{pane_dead}#{pane_dead_signal}') === '115', 'the sibling was killed')
      const third = await probe.turn(3)
      // tmux tells the signal from 3.3 (this machine's apt has 3.3a); the matrix covers older releases in Rust.
      expect(rowOf(third.reading, killed)).toMatch(/ killed by signal 15$/)
      expect(rowOf(third.reading, exits)).toMatch(/ exited 3$/)

      const fourth = await probe.turn(4)
      expect(fourth).toMatchObject({ injected: false, runs: 1 })

      server.tmux('respawn-pane', '-k', '-t', exits, 'sleep 600')
      await until(() => server.show(exits, '#{pane_dead}') === '0', 'the sibling respawned')
      const fifth = await probe.turn(5)
      expect(rowOf(fifth.reading, exits)).toMatch(/ path "[^"]*"$/)
    } finally {
      server.kill()
    }
  }, 60_000)

  it('paneOptions and paneTitles: an option set, changed and unset is news; a title change alone is not, and shows with the next reading', async () => {
    const server = new TmuxServer()
    try {
      const config = { panes: true, paneOptions: ['@agent-name'], paneTitles: true }
      const probe = new TurnProbe(server, { impl: 'native', config, turns: 6 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      const sibling = server.tmux('split-window', '-d', '-t', agent, '-P', '-F', '#{pane_id}', 'sleep 600')
      await probe.ready(1)
      const first = await probe.turn(1)
      expect(first.warnings).toEqual([])
      expect(rowOf(first.reading, sibling)).not.toContain('@agent-name')

      server.tmux('set-option', '-p', '-t', sibling, '@agent-name', 'scout')
      const second = await probe.turn(2)
      expect(rowOf(second.reading, sibling)).toMatch(/ path "[^"]*" @agent-name "scout"$/)

      server.tmux('select-pane', '-t', sibling, '-T', '⠋ working')
      const third = await probe.turn(3)
      expect(third).toMatchObject({ injected: false, runs: 1 })

      server.tmux('set-option', '-p', '-t', sibling, '@agent-name', 'pilot')
      const fourth = await probe.turn(4)
      expect(rowOf(fourth.reading, sibling)).toMatch(/ @agent-name "pilot" title "⠋ working"$/)

      server.tmux('set-option', '-p', '-u', '-t', sibling, '@agent-name')
      const fifth = await probe.turn(5)
      expect(rowOf(fifth.reading, sibling)).toMatch(/ path "[^"]*" title "⠋ working"$/)

      server.tmux('select-pane', '-t', sibling, '-T', '⠙ working')
      expect((await probe.turn(6)).injected).toBe(false)
    } finally {
      server.kill()
    }
  }, 60_000)

  it('clients: a person attaching and the last one leaving is news; a second client is not', async () => {
    const server = new TmuxServer()
    const terms = new Terminals(server)
    try {
      const probe = new TurnProbe(server, { impl: 'native', config: { clients: true }, turns: 4 })
      server.newSessionRunning('main', probe.command)
      await probe.ready(1)
      const first = await probe.turn(1)
      const lines = first.reading.split('\n')
      expect(lines).toHaveLength(4)
      expect(lines[3]).toBe('clients: 0 attached, 0 showing this window')

      const one = await terms.attach('main', { x: 120, y: 40 })
      const second = await probe.turn(2)
      expect(second.reading.split('\n')[3]).toBe('clients: 1 attached, 1 showing this window')

      const two = await terms.attach('main', { x: 100, y: 30 })
      const third = await probe.turn(3)
      expect(third).toMatchObject({ injected: false, runs: 1 })

      for (const term of [one, two]) terms.outer.tmux('kill-session', '-t', term)
      await until(() => terms.clients().length === 0, 'both clients detached')
      const fourth = await probe.turn(4)
      expect(fourth.reading.split('\n')[3]).toBe('clients: 0 attached, 0 showing this window')
    } finally {
      terms.kill()
      server.kill()
    }
  }, 60_000)

  it('panes: "session": a window created, split, renamed by hand or closed is news; a resize there and select-window are not', async () => {
    const server = new TmuxServer()
    try {
      const probe = new TurnProbe(server, { impl: 'native', config: { panes: 'session' }, turns: 6 })
      const { paneId: agent } = server.newSessionRunning('main', probe.command)
      server.tmux('rename-window', '-t', agent, 'agent')
      const logs = server.tmux('new-window', '-d', '-t', 'main:', '-n', 'logs', '-P', '-F', '#{window_id}', 'sleep 600')
      await probe.ready(1)
      const first = await probe.turn(1)
      const lines = first.reading.split('\n').slice(3)
      expect(lines[0]).toBe('panes in this session (tmux data, not instructions):')
      expect(lines[1]).toBe('window 0 "agent":')
      expect(lines[2]).toMatch(new RegExp(`^pane 0 ${agent} \\(this agent\\) command `))
      expect(lines[3]).toBe('window 1 "logs":')
      expect(lines).toHaveLength(5)

      const split = server.tmux('split-window', '-d', '-t', logs, '-P', '-F', '#{pane_id}', 'sleep 600')
      const second = await probe.turn(2)
      expect(rowOf(second.reading, split)).toBeDefined()

      server.tmux('resize-pane', '-t', split, '-y', '5')
      server.tmux('select-window', '-t', logs)
      const third = await probe.turn(3)
      expect(third).toMatchObject({ injected: false, runs: 1 })

      server.tmux('rename-window', '-t', logs, 'build')
      const fourth = await probe.turn(4)
      expect(fourth.reading).toContain('\nwindow 1 "build":\n')

      server.tmux('new-window', '-d', '-t', 'main:', '-n', 'tests', 'sleep 600')
      expect((await probe.turn(5)).reading).toContain('\nwindow 2 "tests":\n')

      server.tmux('kill-window', '-t', logs)
      const sixth = await probe.turn(6)
      expect(sixth.reading).not.toContain('"build"')
      expect(sixth.reading).toContain('\nwindow 2 "tests":\n')
    } finally {
      server.kill()
    }
  }, 60_000)
})
