// `npm run model`: the local stand-in for the DeepSeek API that the e2e uses (e2e/lib/model.mjs), in
// the foreground on 127.0.0.1, for trying the plugin without a key. It prints what to export for dsh, and
// writes the same line to .tmp/model.env (README "Try it" sources it; removed when it stops), then one line
// per request it answers (whether a reading came since the model's last answer); its answer names the
// newest tmux location the request carried.
// Ctrl-C stops it. Usage: npm run model [-- --port N] [--address-file <file>, instead of .tmp/model.env]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { newReadingsInRequest, startModelServer } from '../e2e/lib/model.mjs'

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, 'address-file': { type: 'string' } } })
const model = await startModelServer({ port: Number(values.port) })
const exports = `export DEEPSEEK_BASE_URL=${model.url} DEEPSEEK_API_KEY=sk-local DSH_TELEMETRY_DISABLED=1`
const env = values['address-file'] ?? join(dirname(dirname(fileURLToPath(import.meta.url))), '.tmp', 'model.env')
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    // Only our own line: a model started since wrote its own.
    try {
      if (readFileSync(env, 'utf8') === `${exports}\n`) rmSync(env)
    } catch {}
    await model.close()
    process.exit(0)
  })
}
mkdirSync(dirname(env), { recursive: true })
writeFileSync(env, `${exports}\n`)
process.stdout.write(
  `A local DeepSeek-style endpoint is listening. In the shell that runs dsh (or: . ${values['address-file'] ?? '.tmp/model.env'}):\n\n` +
    `  ${exports}\n\n` +
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
