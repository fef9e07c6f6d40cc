// Builds the native addon (cargo, release profile unless --debug) and places it where index.js and
// the platform package look: ./dsh-tmux-context.<triple>.node and npm/<triple>/.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const debug = process.argv.includes('--debug')
const { platform, arch } = process
const libc = platform === 'linux' ? (process.report?.getReport?.()?.header?.glibcVersionRuntime ? '-gnu' : '-musl') : ''
const triple = `${platform}-${arch}${libc}`
const libName = { linux: 'libdsh_tmux_context.so', darwin: 'libdsh_tmux_context.dylib', win32: 'dsh_tmux_context.dll' }[platform]

execFileSync('cargo', ['build', '--lib', ...(debug ? [] : ['--release'])], { cwd: root, stdio: 'inherit' })
const built = join(root, 'target', debug ? 'debug' : 'release', libName)
const file = `dsh-tmux-context.${triple}.node`
copyFileSync(built, join(root, file))
if (existsSync(join(root, 'npm', triple))) copyFileSync(built, join(root, 'npm', triple, file))
console.log(`built ${file} (${statSync(join(root, file)).size} bytes, ${debug ? 'debug' : 'release'})`)
