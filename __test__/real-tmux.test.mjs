// Real tmux: private servers (`tmux -L`), a real /bin/sh executor, and the plugin running inside a
// pane's own process (the probe), for the native package and, where the contract says "the same",
// the JS reference next to it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { hasTmux, TmuxServer, waitForJson } from './tmux.mjs'

let server
beforeEach(() => {
  server = new TmuxServer()
})
afterEach(() => server.kill())

/** The reading tmux itself implies for `paneId`, each field asked for on its own. */
function expectedReading(paneId, turn = 1) {
  const f = (format) => server.tmux('display-message', '-t', paneId, '-p', format)
  return (
    `tmux location (turn ${turn}):\n` +
    `session ${f('#{session_name}')}, window ${f('#{window_index}')} ${JSON.stringify(f('#{window_name}'))}, pane ${f('#{pane_index}')} ${f('#{pane_id}')}\n` +
    `window active=${f('#{window_active}')}, pane active=${f('#{pane_active}')}, layout ${f('#{window_layout}')}`
  )
}

/** A folder for PATH holding links to the tools named, and `extra` scripts. */
function pathWith(tools, extra = {}) {
  const dir = join(server.dir, `bin-${Math.random().toString(36).slice(2)}`)
  mkdirSync(dir)
  for (const tool of tools) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(dir, tool))
  for (const [name, body] of Object.entries(extra)) {
    writeFileSync(join(dir, name), body)
    chmodSync(join(dir, name), 0o755)
  }
  return dir
}

describe.skipIf(!hasTmux)('in a real tmux pane', () => {
  it('names the pane it runs in; the JS reference reads the same', async () => {
    const session = server.newSession('work')
    const ours = await server.probeInWindow(session, 'agent', { impl: 'native' }, { active: true })
    expect(ours.result.error).toBeUndefined()
    expect(ours.result.readings).toEqual([expectedReading(ours.paneId)])
    const theirs = await server.probeInWindow(session, 'agent', { impl: 'js' }, { active: true })
    expect(theirs.result.readings).toEqual([expectedReading(theirs.paneId)])
  })

  it('an agent in a background window names its own window with window active=0', async () => {
    const session = server.newSession('bg', 'front')
    const { paneId, result } = await server.probeInWindow(session, 'behind', { impl: 'native' })
    expect(result.readings).toHaveLength(1)
    expect(result.readings[0]).toBe(expectedReading(paneId))
    expect(result.readings[0]).toContain('"behind"')
    expect(result.readings[0]).toContain('window active=0')
    expect(server.tmux('display-message', '-t', session, '-p', '#{window_name}')).toBe('front')
  })

  it('an inherited tmux environment without a controlling tty (setsid) gives no reading', async () => {
    const session = server.newSession('inherit')
    for (const impl of ['native', 'js']) {
      const { result } = await server.probeInWindow(session, 'detached', { impl }, { prefix: 'setsid -w' })
      expect(result.error).toBeUndefined()
      expect(result.readings).toEqual([])
      expect(result.passedThrough).toEqual([true])
      expect(result.warnings).toEqual([])
    }
  })

  it.each([
    ['quotes and spaces', 'my "main" session', "it's \"win\""],
    ['backslashes', 'back\\slash', 'C:\\Users\\me'],
    ['CJK and emoji', '会话 🚀', '窗口 😀 ünï'],
  ])('reads names with %s exactly as tmux prints them, like the JS reference', async (_label, sessionName, windowName) => {
    const session = server.newSession(sessionName)
    const ours = await server.probeInWindow(session, windowName, { impl: 'native' }, { active: true })
    expect(ours.result.readings).toEqual([expectedReading(ours.paneId)])
    const theirs = await server.probeInWindow(session, windowName, { impl: 'js' }, { active: true })
    expect(theirs.result.readings).toEqual([expectedReading(theirs.paneId)])
  })

  it('a session or window name holding \\t reads correctly (the JS reference reads nothing)', async () => {
    const session = server.newSession('tab\\tsession')
    const ours = await server.probeInWindow(session, 'win\\tdow', { impl: 'native' }, { active: true })
    const expected = expectedReading(ours.paneId)
    expect(expected).toContain('tab\\\\tsession')
    expect(ours.result.readings).toEqual([expected])
    const theirs = await server.probeInWindow(session, 'win\\tdow', { impl: 'js' }, { active: true })
    expect(theirs.result.readings).toEqual([])
  })

  it('a window name cannot forge a reading (a raw newline and a fake record in the name)', async () => {
    const session = server.newSession('honest')
    const forged = 'x\ndsh-tmux-context:q1\\tSPOOFED\\t9\\tspoofed\\t0\\t%9\\t1\\t1\\tl'
    for (const impl of ['native', 'js']) {
      const { result } = await server.probeInWindow(session, forged, { impl }, { active: true })
      expect(result.error).toBeUndefined()
      if (impl === 'js') {
        expect(result.readings).toEqual([])
        continue
      }
      // tmux's own cut (issue 43) drops a name's control characters, as tmux 3.7 does for every
      // name: the name reads on one line, quoted, marked as cut, and nothing poses as a field.
      const lines = result.readings[0].split('\n')
      expect(lines).toHaveLength(3)
      expect(lines[1]).toMatch(/^session honest, window \d+ "xdsh-tmux-context:q1\\\\tSPOOFED\\\\t9.*\\\\tl" \[cut: more characters at the end\], pane \d+ %\d+$/)
      expect(lines[2]).toMatch(/^window active=1, pane active=1, layout [0-9a-f]{4},/)
    }
  })

  it('a stale $TMUX socket gives no reading and no warning', async () => {
    const session = server.newSession('stale')
    for (const impl of ['native', 'js']) {
      const prefix = `TMUX=${join(server.dir, 'gone')},1,0`
      const { result } = await server.probeInWindow(session, 'w', { impl }, { prefix: `env ${prefix}` })
      expect(result.readings).toEqual([])
      expect(result.warnings).toEqual([])
    }
  })

  it('tmux missing from PATH (and no $TMUX to find the server by) gives no reading and no warning', async () => {
    const session = server.newSession('notmux')
    const bin = pathWith(['ps', 'tr', 'cat'])
    for (const impl of ['native', 'js']) {
      const { result } = await server.probeInWindow(session, 'w', { impl, shellEnv: { PATH: bin } }, { prefix: 'env -u TMUX' })
      expect(result.readings).toEqual([])
      expect(result.warnings).toEqual([])
    }
  })

  it('tmux missing from PATH: the server of $TMUX answers through its own binary (the JS reference reads nothing)', async () => {
    const session = server.newSession('serverbin')
    const bin = pathWith(['ps', 'tr', 'cat'])
    const ours = await server.probeInWindow(session, 'own', { impl: 'native', shellEnv: { PATH: bin } }, { active: true })
    expect(ours.result.readings).toEqual([expectedReading(ours.paneId)])
    const theirs = await server.probeInWindow(session, 'own', { impl: 'js', shellEnv: { PATH: bin } }, { active: true })
    expect(theirs.result.readings).toEqual([])
  })

  it('where ps has no -p (BusyBox), the pane is still recognised through /proc (the JS reference reads nothing)', async () => {
    const session = server.newSession('busybox')
    const busyboxPs = '#!/bin/sh\nfor a in "$@"; do [ "$a" = -p ] && { echo "ps: invalid option -- \'p\'" >&2; exit 1; }; done\nexit 0\n'
    const bin = pathWith(['tmux', 'tr'], { ps: busyboxPs })
    const ours = await server.probeInWindow(session, 'bb', { impl: 'native', shellEnv: { PATH: bin } }, { active: true })
    expect(ours.result.readings).toEqual([expectedReading(ours.paneId)])
    const theirs = await server.probeInWindow(session, 'bb', { impl: 'js', shellEnv: { PATH: bin } }, { active: true })
    expect(theirs.result.readings).toEqual([])
  })

  it('with neither /proc nor ps -p answering (setsid, no ps), it stays a silent no-op', async () => {
    const session = server.newSession('nothing')
    const bin = pathWith(['tmux'])
    const { result } = await server.probeInWindow(session, 'w', { impl: 'native', shellEnv: { PATH: bin } }, { prefix: 'setsid -w' })
    expect(result.readings).toEqual([])
    expect(result.warnings).toEqual([])
  })

  it('a stopped (SIGSTOP) tmux server cannot hold a turn past queryTimeoutMs', async () => {
    const session = server.newSession('frozen')
    const serverPid = Number(server.tmux('display-message', '-p', '#{pid}'))
    const go = join(server.dir, 'go')
    const launch = (impl) => {
      const { out, command } = server.probeCommand({ impl, config: { queryTimeoutMs: 400 }, waitFor: go })
      server.tmux('new-window', '-d', '-t', `${session}:`, '-n', impl, command)
      return out
    }
    const ours = launch('native')
    const theirs = launch('js')
    await waitForJson(ours + '.ready').catch(() => {})
    await waitForJson(theirs + '.ready').catch(() => {})
    process.kill(serverPid, 'SIGSTOP')
    try {
      writeFileSync(go, '')
      // Bound: 400 ms query timeout (the executor kills the query), our own timer 1 s after it; the
      // executor's own default would hold the turn 30 s, past this wait.
      const result = await waitForJson(ours, 15_000)
      expect(result.readings).toEqual([])
      expect(result.passedThrough).toEqual([true])
      // The JS reference passes no bound: its turn is still held when ours has long finished.
      await expect(waitForJson(theirs, 3_000)).rejects.toThrow('no probe result')
    } finally {
      process.kill(serverPid, 'SIGCONT')
      // The JS reference's turn resumes with the server and writes its result into the server's folder: let it
      // finish before the folder goes (it once outlasted the removal's 2 s of retries: ENOTEMPTY).
      await waitForJson(theirs, 15_000).catch(() => {})
    }
  })
})
