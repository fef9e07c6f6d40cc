// Prints what `npm run demo` shows: the plugin installed and mounted the way README "Use" says, into dsh's
// interactive `web` profile, then several turns of ONE session (e2e/web-session.mjs): for each turn, the
// change made in tmux before it, and whether the model received a reading (its text) or none.
import { spawnSync } from 'node:child_process'
import { relative } from 'node:path'
import { BIN_DIR, userEnv } from '../e2e/lib/env.mjs'
import { runWebSession } from '../e2e/web-session.mjs'

const version = (bin) => spawnSync(`${BIN_DIR}/${bin}`, ['--version'], { env: userEnv({}), encoding: 'utf8' }).stdout.trim()
const indent = (text, prefix = '  | ') => text.replace(/\n$/, '').replace(/^/gm, prefix)

const report = await runWebSession()
const home = report.dshHome
const inHome = (p) => (p?.startsWith(home) ? `$DSH_HOME/${relative(home, p)}` : p)
const { install, patch, resolved, tmux, web } = report

console.log(`dsh ${version('dsh')} on Node ${version('node')}, pnpm ${version('pnpm')} (all from e2e/node_modules/.bin); DSH_HOME=${home} (temporary)`)
if (install) {
  console.log(`\n1. Install into the profile "web" (dsh's interactive one), both tarballs in one command (${(install.ms / 1000).toFixed(1)} s):`)
  console.log(`   $ ${install.command}`)
  for (const w of install.warnings) console.log(`   ${w}`)
  if (resolved) console.log(`   the package a bare name resolves to from the profile: ${resolved.version} (${inHome(resolved.path)})`)
}
if (patch) {
  console.log(`\n2. Mount it: the user's patch layer ${inHome(patch.file)}:`)
  console.log(indent(patch.text, '   '))
}
if (tmux && web) {
  console.log(`\n3. In pane ${tmux.paneId} of tmux -L ${tmux.socket} (${tmux.version}): $ ${web.command}   -> ${web.url}`)
  console.log(`   one session (POST /api/session.create: ${report.sessionId}); each turn is one POST /api/session.prompt,`)
  console.log(`   what the browser UI's message box sends. Model endpoint: ${report.endpoint} (DEEPSEEK_BASE_URL)`)
}
for (const t of report.turns) {
  if (t.change) console.log(`\n$ ${t.change}`)
  console.log(`\nturn ${t.turn} (${t.why}): "${t.task}"`)
  const r = t.request
  if (!r) continue
  if (r.fresh.length === 0) {
    const older = r.readings.at(-1)?.text.split('\n')[0]
    console.log(`  the model received no reading (request ${r.n}, ${r.messages} messages${older ? `; the newest reading in them is the earlier "${older}"` : ''})`)
  }
  for (const { index, text } of r.fresh) {
    console.log(`  the model received a reading (request ${r.n}, message ${index + 1} of ${r.messages}, before the task, message ${r.userIndex + 1}):`)
    console.log(indent(text))
  }
}
if (report.logPath) {
  const seqs = report.turns.filter((t) => t.log?.seqs.reading !== undefined).map((t) => `${t.log.seqs.reading} (turn ${t.turn})`)
  console.log(`\nsession log ${inHome(report.logPath)}: ${report.events} events; readings at seq ${seqs.join(', ')}`)
}
if (web?.exitCode !== undefined) console.log(`dsh web stopped with SIGTERM, exit ${web.exitCode}; its stderr: ${(report.loadLine ?? 'no load line').replaceAll(home, '$DSH_HOME')}`)
if (report.probe) console.log(`native binary mapped by that dsh process: ${report.probe.files.map(inHome).join(', ') || 'none (the JavaScript package ran)'}`)
const failed = report.checks.filter((c) => !c.pass)
console.log(`\n${report.checks.length - failed.length}/${report.checks.length} checks passed in ${(report.elapsedMs / 1000).toFixed(1)} s; the tmux server is stopped and the temporary DSH_HOME removed`)
if (report.error) console.log(`error: ${report.error}${report.paneCapture ? `\npane:\n${report.paneCapture}` : ''}`)
if (failed.length) console.log(JSON.stringify(failed, null, 2))
if (failed.length || report.error) process.exit(1)
