// Prints what `npm run demo` shows: the readings the model received, turn by turn, and the pane.
import { runE2E } from '../e2e/run.mjs'

const report = await runE2E({ turns: 3, renameBefore: 3 })
const { socket, session, window, paneId, paneTty, windowRenamed } = report.tmux
console.log(`tmux server -L ${socket}: session ${session}, window ${JSON.stringify(window)}, pane ${paneId} (${paneTty})`)
console.log(`agent process tty: ${report.agent.tty}; session log: ${report.events} events`)
for (const t of report.turns) {
  if (t.turn === windowRenamed?.beforeTurn) console.log(`\n(window renamed to ${JSON.stringify(windowRenamed.to)} before turn ${t.turn})`)
  console.log(`\nturn ${t.turn}: ${t.completed ? 'completed' : 'NOT completed'}`)
  if (t.readings.length === 0) console.log('  no reading (location unchanged)')
  for (const r of t.readings) console.log(r.replace(/^/gm, '  | '))
}
const failed = report.checks.filter((c) => !c.pass)
console.log(`\n${report.checks.length - failed.length}/${report.checks.length} checks passed; tmux server stopped and cleaned up`)
if (failed.length) {
  console.log(JSON.stringify(failed, null, 2))
  process.exit(1)
}
