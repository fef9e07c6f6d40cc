// Print this dsh process's Cordis log on stderr, debug lines included: first what was logged before this
// row started (Cordis keeps it in memory), then everything else as it comes.
import { Logger } from '@deepseek-ai/cordis'

export const name = 'log-to-stderr'

export function apply (ctx, config = {}) {
  const level = config.level ?? 3 // 0 error, 1 info, 2 warn, 3 debug
  const exporter = {
    colors: 0,
    levels: { default: level },
    export: (message) => process.stderr.write(`${message.type} [${message.name}] ${Logger.format(exporter, message)}\n`),
  }
  for (const message of ctx.root.logger.buffer) if (message.level <= level) exporter.export(message)
  ctx.logger.exporter(exporter)
}
