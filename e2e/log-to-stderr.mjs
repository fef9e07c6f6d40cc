// Print this dsh process's Cordis log on stderr, debug lines included.
import { Logger } from '@deepseek-ai/cordis'

export const name = 'log-to-stderr'

export function apply (ctx, config = {}) {
  const exporter = {
    colors: 0,
    levels: { default: config.level ?? 3 }, // 0 error, 1 info, 2 warn, 3 debug
    export: (message) => process.stderr.write(`${message.type} [${message.name}] ${Logger.format(exporter, message)}\n`),
  }
  ctx.logger.exporter(exporter)
}
