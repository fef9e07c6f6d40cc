// Builds the native addon with @napi-rs/cli for the platforms listed in `napi.targets` of
// package.json (the only list of them), and lays out what the packages need:
//   - npm/<platform>/ for every target (`napi create-npm-dirs`: name, version, os, cpu, libc);
//   - npm/<platform>/dsh-tmux-context.<platform>.node for every target built;
//   - ./dsh-tmux-context.<platform>.node for this machine's platform (what the repository's own
//     tests and the benchmark load), and ./binding.cjs and ./binding.d.ts, the loader and types
//     `napi build --js --dts` generates from the crate's #[napi] exports.
//
// Two kinds of build:
//   - this machine's own (--host; `npm run build`, `npm run demo`, `npm test`): plain
//     `napi build --platform --release` with the Rust host toolchain, into target/release/; no zig,
//     no other target's standard library. It runs here, and is what the suites test.
//   - a target named, or every target (no argument; `npm run build:all`, `npm run test:platforms`,
//     the hosted workflow's build job): what ships. `napi build --platform --release --target
//     <triple> [-x]`. Linux glibc targets are built against the napi-rs floor, glibc 2.17
//     (`<triple>.2.17`, which cargo-zigbuild hands to zig as the libc version; riscv64, which glibc
//     supports from 2.27, against 2.27). On a Linux host every Linux and Apple target goes through
//     cargo-zigbuild (`-x`), this machine's own too; on macOS the Apple targets build natively. The
//     two Windows targets are built as their GNU twins (`x86_64-pc-windows-gnu`,
//     `aarch64-pc-windows-gnullvm`) and ship under the MSVC names that stock `node.exe` asks for:
//     the MSVC targets need cargo-xwin, which downloads Microsoft's CRT, and `napi build -x`
//     rejects the GNU ones, so `napi build` runs plain cargo with CARGO pointing at cargo-zigbuild
//     (scripts/cargo-zigbuild.sh). Nothing links against node.lib or libnode: napi's `dyn-symbols`
//     looks the `napi_*` symbols up in node.exe at load, and napi-build only needs a libnode to exist
//     (an empty stub in .tmp/libnode-stub/). WebAssembly (`wasm32-wasip1-threads`, the package for
//     every other platform) builds with plain cargo: it needs only its Rust standard library.
// Each kind keeps its own output folder (.tmp/artifacts/host/<platform>/ and
// .tmp/artifacts/<platform>/), so switching between `npm test` and `npm run test:platforms` rebuilds
// neither. `scripts/toolchain.sh cross` installs what the shipped builds need (Rust targets, zig and
// cargo-zigbuild); the host build needs nothing but Rust.
//
// Usage: node scripts/targets.mjs [--host] [<triple or platform>...] [--force]
//        node scripts/targets.mjs --prebuilt | --no-build
//   no argument: every target; --host: this machine's own build (and any target named beside it,
//   e.g. `--host wasm32-wasip1-threads` for npm test); --prebuilt: none built, the binaries already in
//   .tmp/artifacts/<platform>/ (the hosted workflow's build artifacts) laid out as if built;
//   --no-build: none (the loader and the npm/ dirs are written either way, e.g. after `napi
//   artifacts` in CI). A target whose inputs (src/, Cargo.*, build.rs, package.json, the toolchain
//   and the build arguments) are unchanged since its last build is not built again (cargo would
//   relink each one, about 5 s a target); --force builds anyway.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readNapiConfig } from '@napi-rs/cli'

/** glibc version the linux-gnu binaries are linked against: nothing newer may be required. */
export const GLIBC_FLOOR = '2.17'

/** The glibc floor of a Linux glibc target (`undefined` for any other): riscv64 has glibc from 2.27. */
export function glibcFloor(target) {
  if (target.platform !== 'linux' || !target.abi?.startsWith('gnu')) return undefined
  return target.arch === 'riscv64' ? '2.27' : GLIBC_FLOOR
}

/** The triple cargo builds for a target of napi.targets: a Windows MSVC target as its GNU twin. */
export function buildTriple(target) {
  if (process.platform === 'win32') return target.triple
  const twins = { 'x86_64-pc-windows-msvc': 'x86_64-pc-windows-gnu', 'aarch64-pc-windows-msvc': 'aarch64-pc-windows-gnullvm' }
  return twins[target.triple] ?? target.triple
}

/** The platform name in the file `napi build` writes for a target (a Windows twin's own name). */
function builtPlatform(target) {
  if (process.platform === 'win32') return target.platformArchABI
  return { 'x86_64-pc-windows-msvc': 'win32-x64-gnu', 'aarch64-pc-windows-msvc': 'win32-arm64-gnullvm' }[target.triple] ?? target.platformArchABI
}

const root = fileURLToPath(new URL('..', import.meta.url))
const napi = join(root, 'node_modules', '.bin', 'napi')

/** The targets of package.json, each `{ triple, platformArchABI, platform, arch, abi }`. */
export async function targets() {
  return (await readNapiConfig(join(root, 'package.json'))).targets
}

/** This machine's napi-rs platform name (`linux-x64-gnu`, `darwin-arm64`, ...). */
export function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform !== 'linux') return `${platform}-${arch}`
  return `linux-${arch}-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}`
}

/**
 * The oldest macOS an Apple target's binary runs on: rustc's own default for the target (10.12 on
 * x86_64, 11.0 on arm64 with Rust 1.95), written into the binary by the linker. Passed on as
 * MACOSX_DEPLOYMENT_TARGET because zig, as the linker, would otherwise stamp its own newer default.
 */
export function deploymentTarget(triple) {
  const out = execFileSync('rustc', ['--print', 'deployment-target', '--target', triple], { encoding: 'utf8' })
  return out.trim().split('=')[1]
}

/** The Rust host triple of this machine's toolchain. */
function rustHost() {
  return execFileSync('rustc', ['-vV'], { encoding: 'utf8' }).match(/^host: (\S+)$/m)[1]
}

/**
 * `napi build` arguments for one target. `host`: this machine's own build, plain cargo for the host
 * triple (no --target). Otherwise through cargo-zigbuild (`-x`) unless the target is this machine's
 * own and needs no glibc floor, or both are macOS (Apple's linker builds either CPU); Windows through
 * cargo-zigbuild as CARGO ([`buildEnv`]); WebAssembly with plain cargo.
 */
export function buildArgs(target, outputDir, { host = false } = {}) {
  const loader = ['--js', 'binding.cjs', '--dts', 'binding.d.ts', '--output-dir', outputDir]
  if (host) return ['build', '--platform', '--release', ...loader]
  const floor = glibcFloor(target) ? `.${glibcFloor(target)}` : ''
  const native =
    (target.triple === rustHost() && !floor) ||
    (process.platform === 'darwin' && target.platform === 'darwin') ||
    target.platform === 'win32' ||
    target.platform === 'wasi'
  const cross = !native
  return ['build', '--platform', '--release', '--target', buildTriple(target) + floor, ...(cross ? ['-x'] : []), ...loader]
}

/** Whether a build goes through zig: cargo-zigbuild as `napi build -x`, or as CARGO (Windows). */
function usesZig(args, env) {
  return args.includes('-x') || env.CARGO !== undefined
}

/** What a target's build adds to the environment: for Windows, cargo-zigbuild as CARGO and a libnode stub. */
export function buildEnv(target, { host = false } = {}) {
  if (host || target.platform !== 'win32' || process.platform === 'win32') return {}
  const stub = join(root, '.tmp', 'libnode-stub')
  mkdirSync(stub, { recursive: true })
  writeFileSync(join(stub, 'libnode.dll'), '')
  writeFileSync(join(stub, 'libnode.a'), '!<arch>\n')
  return { CARGO: join(root, 'scripts', 'cargo-zigbuild.sh'), LIBNODE_PATH: stub }
}

/** The files a target's build leaves in its output directory and its npm/ package ships. */
function builtFiles(target, binaryName) {
  if (target.platform !== 'wasi') return [[`${binaryName}.${builtPlatform(target)}.node`, `${binaryName}.${target.platformArchABI}.node`]]
  return [`${binaryName}.wasm32-wasi.wasm`, `${binaryName}.wasi.cjs`, `${binaryName}.wasi.d.cts`, `${binaryName}.wasi-browser.js`, 'wasi-worker.mjs', 'wasi-worker-browser.mjs'].map((f) => [f, f])
}

/** Every file under `dir`, sorted. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
    .sort()
}

/** A digest of what a target's binary is made from: when it is unchanged, so is the binary. */
function inputsDigest(args, env) {
  const hash = createHash('sha256')
  // The zig and cargo-zigbuild versions (scripts/build-tools.txt) count only for a build through them.
  const tools = usesZig(args, env) ? ['scripts/build-tools.txt'] : []
  const inputs = [...files(join(root, 'src')), ...['Cargo.toml', 'Cargo.lock', 'build.rs', ...tools].map((f) => join(root, f))]
  for (const file of inputs.filter(existsSync)) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0')
  const { name, version, napi: config } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  hash.update(JSON.stringify({ name, version, config }))
  hash.update(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))
  hash.update(JSON.stringify([args, env.MACOSX_DEPLOYMENT_TARGET ?? null, env.CARGO ?? null, process.platform, process.arch]))
  hash.update(readFileSync(join(root, 'node_modules', '@napi-rs', 'cli', 'package.json')))
  return hash.digest('hex')
}

async function main() {
  const force = process.argv.includes('--force')
  const prebuilt = process.argv.includes('--prebuilt')
  const hostBuild = process.argv.includes('--host')
  const args = process.argv.slice(2).filter((a) => !['--force', '--prebuilt', '--host'].includes(a))
  const config = await readNapiConfig(join(root, 'package.json'))
  const all = config.targets
  const host = hostPlatform()
  const artifacts = join(root, '.tmp', 'artifacts')
  /** The builds to make, each `{ target, host }` (`host`: this machine's own, plain cargo). */
  let builds = all.map((target) => ({ target, host: false }))
  if (args.includes('--no-build')) {
    builds = []
  } else if (prebuilt) {
    builds = builds.filter(({ target: t }) => builtFiles(t, config.binaryName).every(([, shipped]) => existsSync(join(artifacts, t.platformArchABI, shipped))))
    if (!builds.some(({ target: t }) => t.platformArchABI === host)) throw new Error(`targets: --prebuilt: no ${host} binary in .tmp/artifacts/${host}/`)
  } else if (hostBuild || args.length > 0) {
    const unknown = args.filter((a) => !all.some((t) => a === t.triple || a === t.platformArchABI))
    if (unknown.length > 0) throw new Error(`targets: not in napi.targets of package.json: ${unknown.join(', ')}`)
    builds = builds.filter(({ target: t }) => args.includes(t.triple) || args.includes(t.platformArchABI))
    if (hostBuild) {
      const own = all.find((t) => t.platformArchABI === host)
      if (own === undefined) {
        throw new Error(
          `targets: this machine's platform ${host} is not in napi.targets of package.json ` +
            `(${all.map((t) => t.platformArchABI).join(', ')}); add its Rust target triple there to build it`,
        )
      }
      builds.unshift({ target: own, host: true })
    }
  }

  // `napi build -x` would `cargo install cargo-zigbuild` by itself (minutes of compiling, into
  // ~/.cargo) when it is not on PATH; scripts/toolchain.sh installs the prebuilt one instead.
  const onPath = (cmd) => (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, cmd)))
  const zig = !prebuilt && builds.some(({ target, host }) => usesZig(buildArgs(target, '', { host }), buildEnv(target, { host })))
  const absent = zig ? ['zig', 'cargo-zigbuild'].filter((c) => !onPath(c)) : []
  if (absent.length > 0) {
    throw new Error(
      `targets: ${absent.join(' and ')} not on PATH: run \`bash scripts/toolchain.sh cross\` and \`. scripts/tools-env.sh\` first ` +
        '(npm run build:all and npm run test:platforms do; this machine\'s own build, --host, needs neither)',
    )
  }
  execFileSync(napi, ['create-npm-dirs'], { cwd: root, stdio: ['ignore', 'ignore', 'ignore'] })
  let written
  for (const { target, host: own } of builds) {
    const started = Date.now()
    const out = own ? join(artifacts, 'host', target.platformArchABI) : join(artifacts, target.platformArchABI)
    mkdirSync(out, { recursive: true })
    const env = { ...process.env, ...buildEnv(target, { host: own }) }
    if (target.platform === 'darwin' && !own) env.MACOSX_DEPLOYMENT_TARGET ??= deploymentTarget(target.triple)
    const outputs = builtFiles(target, config.binaryName)
    const args = buildArgs(target, out, { host: own })
    const digest = inputsDigest(args, env)
    const stamp = join(out, '.inputs')
    const upToDate = prebuilt || (!force && outputs.every(([, shipped]) => existsSync(join(out, shipped))) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest)
    if (!upToDate) {
      execFileSync(napi, args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] })
      for (const [built, shipped] of outputs) if (built !== shipped) copyFileSync(join(out, built), join(out, shipped))
      writeFileSync(stamp, digest)
    }
    for (const [, shipped] of outputs) copyFileSync(join(out, shipped), join(root, 'npm', target.platformArchABI, shipped))
    const file = outputs[0][1]
    if (target.platformArchABI === host) copyFileSync(join(out, file), join(root, file))
    if (existsSync(join(out, 'binding.cjs'))) written ??= out
    const size = statSync(join(out, file)).size
    const kind = own ? "this machine's own build" : glibcFloor(target) ? `as shipped, glibc ${glibcFloor(target)} floor` : 'as shipped'
    const took = prebuilt ? 'prebuilt' : upToDate ? 'up to date' : `built in ${((Date.now() - started) / 1000).toFixed(1)} s`
    console.error(`targets: ${file} (${size} bytes, ${kind}) ${took}`)
  }

  // The loader and its types, as `napi build --js --dts` wrote them beside each target's binary
  // (the same for every target: they follow the crate's #[napi] exports); --no-build takes them
  // from an earlier build or from downloaded artifacts.
  written ??= [join(artifacts, 'host', host), ...all.map((t) => join(artifacts, t.platformArchABI))].find((dir) => existsSync(join(dir, 'binding.cjs')))
  if (written === undefined) throw new Error('targets: no build wrote binding.cjs; build a target first')
  for (const file of ['binding.cjs', 'binding.d.ts']) copyFileSync(join(written, file), join(root, file))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
