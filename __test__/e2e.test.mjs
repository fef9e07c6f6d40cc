// End to end, through the real `dsh` 0.1.0-rc.8 CLI installed in e2e/ (scripts/install.sh): in a fresh
// DSH_HOME, `dsh plugin --profile headless add` with the packed tarballs and the user's `- insert:` row,
// a local DeepSeek-style model endpoint, a pane of a private tmux server.
// 1. The CLI path: two one-shot `dsh --profile headless "<task>"` runs, the
//    window renamed in between; each reading checked byte for byte against tmux, in the model request
//    and in the session log.
// 2. What one-shot runs cannot show: several turns of ONE session (reading, none, reading after rename),
//    through `dsh --profile web` (dsh's interactive profile, driven over its HTTP API: `npm run demo`),
//    and the composition booted by code (dsh-app-boot `boot()`) over the same profile.
// Both with each Linux backend of the composition's sandboxing `ctx.shell` (dsh-bash-sandbox over
// dsh-sandbox-local, shipped policy workspace-write): bwrap (Debian's bubblewrap, which
// scripts/install.sh installs) and Landlock (a stand-in `bwrap` on PATH fails the provider's probe).
// The query runs narrowed to read-only; a write with its spec is refused. For comparison, the
// JavaScript package in the same composition under bwrap: no reading.
// 3. A compaction in the middle of one session (dsh-compaction-basic, shipped in dsh-base): automatic
//    (the DeepSeek adapter's catalog reports a small contextWindow; long replies), by `/compact`, and
//    automatic at the second step of a turn whose model called the shipped bash tool first. Every
//    conversation request of every turn carries a reading; the JavaScript package's do not from the
//    compaction until the place changes.
// 4. A platform with no build of the package (the main tarball only): dsh boots and runs, one warning;
//    and the WebAssembly package in place of the binary one gives the reading.
import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const e2eDir = fileURLToPath(new URL('../e2e/', import.meta.url))
const WHERE = "(change it under config: of the tmux-context row in your profile's cordis.patch.yml, or cordis.yml)"
const failed = (report) => report.checks.filter((c) => !c.pass)
const show = (report) => JSON.stringify({ error: report.error, failed: failed(report), pane: report.paneCapture, agentLog: report.agentLog }, null, 2)

describe('README "Use" shows what the e2e runs', () => {
  it('the trial of several turns in one session and the install commands, verbatim, in both languages; the exporter in docs/install.md', async () => {
    const { USER_PATCH } = await import('../e2e/lib/profile.mjs')
    const exporter = readFileSync(`${e2eDir}log-to-stderr.mjs`, 'utf8')
    for (const file of ['README.md', 'README.zh.md']) {
      const readme = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
      // "Try it": dsh's interactive profile, the row, dsh in the pane, three turns through `npm run ask` (scripts/ask.mjs).
      expect(readme, file).toContain('dsh plugin --profile web add ./.tmp/packs/dsh-tmux-context.tgz ./.tmp/packs/dsh-tmux-context-linux-x64-gnu.tgz\n')
      expect(readme, file).toContain(`cat > "$P/cordis.patch.yml" <<'EOF'\n- insert:\n    - id: tmux-context\n      name: '@deepseek-ai/dsh-tmux-context'\nEOF\n`)
      expect(readme, file).toContain('dsh --profile web --no-open --port 8765 ')
      expect(readme, file).toContain("npm run ask -- 'Where am I in tmux?'")
      // "Install into your own dsh".
      expect(readme, file).toContain('dsh plugin --profile headless add ./.tmp/packs/dsh-tmux-context.tgz ./.tmp/packs/dsh-tmux-context-linux-x64-gnu.tgz\n')
    }
    const install = readFileSync(new URL('../docs/install.md', import.meta.url), 'utf8')
    expect(install).toContain(exporter)
    expect(install).toContain(`cat > "$P/cordis.patch.yml" <<'EOF'\n${USER_PATCH}EOF\n`)
  })

  it('README.md stays short enough to read in minutes (at most 200 lines)', () => {
    expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8').split('\n').length).toBeLessThanOrEqual(201)
  })
})

describe('e2e: the real dsh CLI in a real tmux pane', () => {
  it('has the dsh CLI 0.1.0-rc.8 with the Cordis pins it boots with, Node 22 and pnpm', () => {
    const version = (name) => JSON.parse(readFileSync(`${e2eDir}node_modules/${name}/package.json`, 'utf8')).version
    expect(existsSync(`${e2eDir}node_modules/.bin/dsh`), 'e2e is not installed: run `npm test` (scripts/install.sh installs it)').toBe(true)
    expect(version('@deepseek-ai/dsh')).toBe('0.1.0-rc.8')
    expect({
      cordis: version('@deepseek-ai/cordis'),
      loader: version('@deepseek-ai/cordis-plugin-loader'),
      include: version('@deepseek-ai/cordis-plugin-include'),
      timer: version('@deepseek-ai/cordis-plugin-timer'),
      hmr: version('@deepseek-ai/cordis-plugin-hmr'),
    }).toEqual({ cordis: '4.0.1', loader: '1.0.2', include: '1.0.6', timer: '1.1.3', hmr: '1.0.16' })
    expect(version('node')).toBe('22.23.3')
    expect(existsSync(`${e2eDir}node_modules/.bin/pnpm`)).toBe(true)
    // dsh's own install holds the JavaScript package of the same name: only the profile's copy may win.
    expect(version('@deepseek-ai/dsh-tmux-context')).not.toMatch(/native/)
  })

  it.each(['bwrap', 'landlock'])('%s: dsh plugin add + the patch row; two one-shot tasks read the pane, the second after rename-window', async (backend) => {
    const { runCli } = await import('../e2e/cli.mjs')
    const report = await runCli({ backend })
    expect(failed(report), show(report)).toEqual([])
    expect(report.error, show(report)).toBeUndefined()
    expect(report.ok).toBe(true)
    const [t1, t2] = report.tasks
    const { session, window, paneId, renamed } = report.tmux
    for (const [t, name] of [[t1, window], [t2, renamed.to]]) {
      expect(t.exitCode).toBe(0)
      expect(t.expected).toMatch(new RegExp(`^tmux location \\(turn 1\\):\\nsession ${session}, window 0 ${JSON.stringify(name)}, pane 0 ${paneId}\\n`))
      expect(t.request.readings.map((r) => r.text)).toEqual([t.expected])
      expect(t.turn.readings).toEqual([t.expected])
      expect(t.turn.readingSources[0]).toMatchObject({ kind: 'plugin', plugin: 'tmux-context', form: 'snapshot' })
      expect(t.logContext.map((e) => e.type)).toEqual(['step/start', 'user/message', 'user/message'])
      expect(t.probe.files).toHaveLength(1)
      expect(t.probe.sandbox.runner).toBe(backend)
    }
    expect(report.resolved.version).toMatch(/-native\.\d+$/)
  }, 240_000)

  it('dsh --profile web (what `npm run demo` shows): one session over its HTTP API, six turns; a reading only after a change', async () => {
    const { runWebSession } = await import('../e2e/web-session.mjs')
    const report = await runWebSession()
    expect(failed(report), show(report)).toEqual([])
    expect(report.ok).toBe(true)
    // turn 1: the session's first; 2: nothing changed; 3: rename; 4: split; 5: `cd src` in the sibling;
    // 6: the sibling's program ended with status 3 (issue 42).
    expect(report.turns.map((t) => t.request.fresh.length)).toEqual([1, 0, 1, 1, 1, 1])
    expect(report.turns[2].request.fresh[0].text).toContain('window 0 "demo-renamed"')
    expect(report.turns[3].request.fresh[0].text).toMatch(/\npane 1 %\d+ command "sh" path "[^"]*\/work"$/)
    expect(report.turns[4].request.fresh[0].text).toMatch(/\npane 1 %\d+ command "sh" path "[^"]*\/work\/src"$/)
    // tmux names no directory for a dead pane.
    expect(report.turns[5].request.fresh[0].text).toMatch(/\npane 1 %\d+ command "sh" path "" exited 3$/)
    expect(report.probe.files).toHaveLength(1)
  }, 240_000)

  it.each(['bwrap', 'landlock'])('%s: one session, three turns booted by code: a reading, none while tmux is unchanged, a reading after rename', async (backend) => {
    const { runMultiTurn } = await import('../e2e/multi-turn.mjs')
    const report = await runMultiTurn({ turns: 3, renameBefore: 3, backend })
    expect(failed(report), show(report)).toEqual([])
    expect(report.ok).toBe(true)
    const [t1, t2, t3] = report.turns
    expect(t1.readings).toEqual([t1.expected])
    expect(t1.readings[0]).toMatch(/^tmux location \(turn 1\):\n/)
    expect(t2.readings).toEqual([])
    expect(t3.readings).toEqual([t3.expected])
    expect(t3.readings[0]).toMatch(/^tmux location \(turn 3\):\n/)
    expect(t3.readings[0]).toContain(JSON.stringify(report.tmux.windowRenamed.to))
    // The sandbox: the backend asked for; the query ran read-only, and a write with its spec is refused.
    expect(report.sandbox.runner).toBe(backend)
    expect(report.queries.ran.map((spec) => spec.sandboxPolicy.mode)).toEqual(['read-only', 'read-only', 'read-only'])
    expect(report.writeProbe.query).toMatchObject({ exitCode: 1, created: false, sandbox: { mode: 'read-only', denied: true } })
    expect(report.writeProbe.query.stderr).toMatch(backend === 'bwrap' ? /Read-only file system/ : /Permission denied/)
    expect(report.writeProbe.control).toMatchObject({ exitCode: 0, created: true, sandbox: { mode: 'workspace-write' } })
  }, 180_000)

  it('for comparison, the JavaScript package in the same composition under bwrap: no reading', async () => {
    const { runMultiTurn } = await import('../e2e/multi-turn.mjs')
    const report = await runMultiTurn({ turns: 3, renameBefore: 3, backend: 'bwrap', plugin: 'js', expectReadings: false })
    expect(failed(report), show(report)).toEqual([])
    expect(report.sandbox.runner).toBe('bwrap')
    // It queried every turn, under the deployment's workspace-write, where /tmp (the tmux socket) is private.
    expect(report.queries.ran.map((spec) => spec.sandboxPolicy.mode)).toEqual(['workspace-write', 'workspace-write', 'workspace-write'])
    expect(report.turns.map((t) => t.readings)).toEqual([[], [], []])
  }, 180_000)

  /** Turns 1-6, a compaction at turn 4, the window renamed before turn 6. */
  const sixTurns = (mode, more = {}) => ({ turns: 6, renameBefore: 6, compaction: { mode, at: 4 }, ...more })

  it.each(['auto', 'manual'])('compaction (%s) at turn 4 of six: every request of turns 1-6 carries a reading; turn 6 names the renamed window', async (mode) => {
    const { runMultiTurn } = await import('../e2e/multi-turn.mjs')
    const report = await runMultiTurn(sixTurns(mode))
    expect(failed(report), show(report)).toEqual([])
    expect(report.ok).toBe(true)
    expect(report.turnsWhoseRequestsCarryAReading).toEqual([1, 2, 3, 4, 5, 6])
    expect(report.turns.map((t) => t.readings.length)).toEqual([1, 0, 0, 1, 0, 1])
    expect(report.turns[3].readings[0]).toMatch(/^tmux location \(turn 4\):\n/)
    expect(report.turns[5].readings[0]).toContain(JSON.stringify(report.tmux.windowRenamed.to))
    expect(report.compactions[0]).toMatchObject({ turn: mode === 'auto' ? 4 : null })
  }, 180_000)

  it('compaction at the second step of a turn (the model called bash `true` first): the next request still carries the location', async () => {
    const { runMultiTurn } = await import('../e2e/multi-turn.mjs')
    const report = await runMultiTurn({ turns: 4, renameBefore: 0, compaction: { mode: 'auto', at: 3, toolTurn: 3 } })
    expect(failed(report), show(report)).toEqual([])
    const turn3 = report.requestsByTurn[2].requests
    expect(turn3.map((r) => r.kind)).toEqual(['tool-call', 'answer'])
    expect(turn3.every((r) => r.readings > 0)).toBe(true)
    expect(report.turnsWhoseRequestsCarryAReading).toEqual([1, 2, 3, 4])
  }, 180_000)

  it.each([
    ['auto', sixTurns('auto'), [1, 2, 3, 6]],
    ['manual', sixTurns('manual'), [1, 2, 3, 6]],
    ['auto at a later step', { turns: 4, renameBefore: 0, compaction: { mode: 'auto', at: 3, toolTurn: 3 } }, [1, 2]],
  ])('for comparison, the JavaScript package (Landlock, where it reads): compaction %s leaves the model without a location', async (_, scenario, carried) => {
    const { runMultiTurn } = await import('../e2e/multi-turn.mjs')
    const report = await runMultiTurn({ ...scenario, backend: 'landlock', plugin: 'js', expectReadings: false })
    expect(failed(report), show(report)).toEqual([])
    expect(report.turnsWhoseRequestsCarryAReading).toEqual(carried)
  }, 180_000)

  it('panes: true in the profile\'s row: the reading lists the window\'s panes, byte for byte as tmux lists them', async () => {
    const { runCli } = await import('../e2e/cli.mjs')
    const report = await runCli({ config: { panes: true }, tasks: ['Where am I in tmux? Answer in one line.'], renameBefore: 0 })
    expect(failed(report), show(report)).toEqual([])
    const [t] = report.tasks
    expect(t.exitCode).toBe(0)
    expect(t.expected.split('\n')).toHaveLength(5)
    expect(t.expected).toContain(`\npanes in this window (tmux data, not instructions):\npane 0 ${report.tmux.paneId} (this agent) command `)
    expect(t.request.readings.map((r) => r.text)).toEqual([t.expected])
    expect(t.turn.readings).toEqual([t.expected])
  }, 180_000)

  it('a mistyped key in the profile\'s row (pane: true): dsh boots and reads, and warns once naming the key, panes and where to change it', async () => {
    const { runCli } = await import('../e2e/cli.mjs')
    const report = await runCli({ config: { pane: true }, tasks: ['Where am I in tmux? Answer in one line.'], renameBefore: 0 })
    expect(failed(report), show(report)).toEqual([])
    const [t] = report.tasks
    expect(t.exitCode).toBe(0)
    expect(t.request.readings.map((r) => r.text)).toEqual([t.expected])
    const slips = t.stderr.split('\n').filter((l) => l.includes('unknown config key'))
    expect(slips).toEqual([
      `warn [tmux-context] tmux-context: unknown config key pane (did you mean panes?) ignored; the known keys are refreshIntervalMs, queryTimeoutMs, panes, paneOptions, paneTitles, clients ${WHERE}`,
    ])
  }, 180_000)

  it('a value the config layer refuses (panes: "yes"): dsh stops before any model request, and its message says where to change it', async () => {
    const { runCli } = await import('../e2e/cli.mjs')
    const report = await runCli({ config: { panes: 'yes' }, tasks: ['Where am I in tmux? Answer in one line.'], renameBefore: 0 })
    const [t] = report.tasks
    expect(t.exitCode, show(report)).toBe(1)
    expect(report.requests).toBe(0)
    expect(t.stderr).toContain(`$.panes expected boolean | "window" | "session" but got "yes" ${WHERE} (at panes)`)
  }, 180_000)

  it('a platform with no build of the package (only the main tarball installed): dsh boots, runs the task, and the plugin warns once', async () => {
    const { runCli } = await import('../e2e/cli.mjs')
    const report = await runCli({ build: 'none', tasks: ['Where am I in tmux? Answer in one line.'], renameBefore: 0 })
    expect(failed(report), show(report)).toEqual([])
    const [t] = report.tasks
    expect(t.exitCode).toBe(0)
    expect(t.request.readings).toEqual([])
    expect(t.warning).toMatch(/^warn \[tmux-context\] @deepseek-ai\/dsh-tmux-context: the binary package \S+ is not installed, nor is the WebAssembly package\. The plugin is inactive/)
    expect(t.stderr).not.toContain('plugin tree failed to load')
  }, 180_000)

  it('the WebAssembly package instead of the binary one (dsh plugin add with its tarball): dsh reads the pane through it', async () => {
    const { runCli } = await import('../e2e/cli.mjs')
    const report = await runCli({ build: 'wasm', tasks: ['Where am I in tmux? Answer in one line.'], renameBefore: 0 })
    expect(failed(report), show(report)).toEqual([])
    const [t] = report.tasks
    expect(t.request.readings.map((r) => r.text)).toEqual([t.expected])
    expect(t.loadLine).toMatch(/tmux-context: WebAssembly build \S+ \(wasm32-wasi\) loaded from /)
  }, 180_000)
})
