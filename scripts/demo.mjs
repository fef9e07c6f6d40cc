// Prints what `npm run demo` shows: the plugin installed and mounted the way README "Use" says, then two
// one-shot `dsh` tasks in a tmux pane, the window renamed in between, and for each the reading the model
// received (from the requests the local endpoint got) and where it sits in the persisted session log.
import { spawnSync } from 'node:child_process'
import { relative } from 'node:path'
import { runCli } from '../e2e/cli.mjs'
import { BIN_DIR, userEnv } from '../e2e/lib/env.mjs'

const version = (bin) => spawnSync(`${BIN_DIR}/${bin}`, ['--version'], { env: userEnv({}), encoding: 'utf8' }).stdout.trim()
const indent = (text, prefix = '  | ') => text.replace(/\n$/, '').replace(/^/gm, prefix)

const report = await runCli()
const home = report.dshHome
const inHome = (p) => (p?.startsWith(home) ? `$DSH_HOME/${relative(home, p)}` : p)
const { install, patch, resolved, tmux } = report

console.log(`dsh ${version('dsh')} on Node ${version('node')}, pnpm ${version('pnpm')} (all from e2e/node_modules/.bin); DSH_HOME=${home} (temporary)`)
if (install) {
  console.log(`\n1. Install into the profile "headless", both tarballs in one command (${(install.ms / 1000).toFixed(1)} s):`)
  console.log(`   $ ${install.command}`)
  for (const w of install.warnings) console.log(`   ${w}`)
  if (resolved) console.log(`   the package a bare name resolves to from the profile: ${resolved.version} (${inHome(resolved.path)})`)
}
if (patch) {
  console.log(`\n2. Mount it: the user's patch layer ${inHome(patch.file)}:`)
  console.log(indent(patch.text, '   '))
}
if (tmux) {
  console.log(`\n3. Model endpoint ${report.endpoint} (DEEPSEEK_BASE_URL); tmux -L ${tmux.socket} (${tmux.version}): pane ${tmux.paneId} of session ${tmux.session}`)
}
for (const t of report.tasks) {
  if (t.k === tmux?.renamed?.beforeTask) console.log(`\n$ tmux rename-window ${JSON.stringify(tmux.renamed.to)}`)
  console.log(`\ntask ${t.k}, run in the pane: ${t.command}   (exit ${t.exitCode}, ${(t.ms / 1000).toFixed(1)} s)`)
  const r = t.request?.readings ?? []
  if (r.length === 0) console.log('  the model received no reading')
  for (const { index, text } of r) {
    console.log(`  the model received, in request ${t.request.n} to ${report.endpoint}/chat/completions (message ${index + 1} of ${t.request.messages}, the task is message ${t.request.userIndex + 1}):`)
    console.log(indent(text))
  }
  if (t.logPath) {
    console.log(`  session log ${inHome(t.logPath)} (${t.events} events):`)
    for (const e of t.logContext ?? []) {
      const note = e.source?.kind === 'plugin' ? `  source ${JSON.stringify(e.source)}  <- the reading` : e.source?.kind === 'user' ? '  source {"kind":"user"}  <- the task' : ''
      console.log(`    seq ${e.seq} ${e.type}${note}`)
    }
  }
  console.log(`  dsh printed: ${t.stdout.trim()}`)
  if (t.loadLine) console.log(`  its stderr: ${t.loadLine}`)
  if (t.probe) console.log(`  native binary mapped by that dsh process: ${t.probe.files.map(inHome).join(', ') || 'none (the JavaScript package ran)'}`)
}
const failed = report.checks.filter((c) => !c.pass)
console.log(`\n${report.checks.length - failed.length}/${report.checks.length} checks passed in ${(report.elapsedMs / 1000).toFixed(1)} s; the tmux server is stopped and the temporary DSH_HOME removed`)
if (report.error) console.log(`error: ${report.error}${report.paneCapture ? `\npane:\n${report.paneCapture}` : ''}`)
if (failed.length) console.log(JSON.stringify(failed, null, 2))
if (failed.length || report.error) process.exit(1)
