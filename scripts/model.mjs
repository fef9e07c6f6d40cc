// `npm run model`: the local stand-in for the DeepSeek API that the e2e uses (e2e/lib/model.mjs), in
// the foreground on 127.0.0.1, for trying the plugin without a key. It prints what to export for dsh
// and one line per request it answers (whether a reading came since the model's last answer); its
// answer names the newest tmux location the request carried.
// Ctrl-C stops it. Usage: npm run model [-- --port N]
import { parseArgs } from 'node:util'
import { newReadingsInRequest, startModelServer } from '../e2e/lib/model.mjs'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' } } })
const model = await startModelServer({ port: Number(values.port) })
process.stdout.write(
  `A local DeepSeek-style endpoint is listening. In the shell that runs dsh:\n\n` +
    `  export DEEPSEEK_BASE_URL=${model.url} DEEPSEEK_API_KEY=sk-local DSH_TELEMETRY_DISABLED=1\n\n` +
    `(a real user sets DEEPSEEK_API_KEY and no DEEPSEEK_BASE_URL instead). Ctrl-C stops it.\n`,
)
let seen = 0
setInterval(() => {
  for (; seen < model.requests.length; seen++) {
    const r = model.requests[seen]
    const reading = newReadingsInRequest(r.body).at(-1)?.text.split('\n')[1]
    process.stdout.write(`request ${r.n} (${r.kind ?? 'unread'}): ${reading ? `a new reading: ${reading}` : 'no new reading'}\n`)
  }
}, 200)
process.on('SIGINT', async () => {
  await model.close()
  process.exit(0)
})
