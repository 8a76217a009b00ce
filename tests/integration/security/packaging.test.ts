// Packaging that holds together, checked without building installers (electron-builder needs Electron's
// download): electron-builder.yml and the built output (out/) must put into every target what the
// runtime needs, with the binaries outside the asar (a file inside an asar cannot be spawned or
// dlopen'ed). The installers themselves (AppImage, dmg, nsis) are built with `npm run dist`.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, resolve } from 'node:path'
import { load } from 'js-yaml'
import { minimatch } from 'minimatch'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '../../..')
const config = load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as {
  files: string[]
  asarUnpack: string[]
  linux: { target: string[] }
  mac: { target: string[]; extendInfo: Record<string, string> }
  win: { target: string[] }
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  main: string
  dependencies: Record<string, string>
}
const optionalOf = (name: string): string[] =>
  Object.keys(
    (
      JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as {
        optionalDependencies?: Record<string, string>
      }
    ).optionalDependencies ?? {}
  )

const included = (path: string): boolean => {
  const positive = config.files.filter((g) => !g.startsWith('!'))
  const negative = config.files.filter((g) => g.startsWith('!')).map((g) => g.slice(1))
  return positive.some((g) => minimatch(path, g)) && !negative.some((g) => minimatch(path, g))
}
const unpacked = (path: string): boolean => config.asarUnpack.some((g) => minimatch(path, g))

// What each installer target needs on disk, outside the asar: ffmpeg-static's binary, and the native
// keyring and SQLite modules built for that OS (their package names are the packages' own lists).
const TARGETS = [
  {
    os: 'Windows (nsis)',
    ffmpeg: 'ffmpeg.exe',
    keyring: 'win32-x64-msvc',
    libsql: 'win32-x64-msvc'
  },
  { os: 'macOS arm64 (dmg)', ffmpeg: 'ffmpeg', keyring: 'darwin-arm64', libsql: 'darwin-arm64' },
  { os: 'macOS x64 (dmg)', ffmpeg: 'ffmpeg', keyring: 'darwin-x64', libsql: 'darwin-x64' },
  { os: 'Linux (AppImage)', ffmpeg: 'ffmpeg', keyring: 'linux-x64-gnu', libsql: 'linux-x64-gnu' }
]

describe('packaging', () => {
  it('builds installers for Windows, macOS and Linux, with the camera and microphone explained', () => {
    expect(config.win.target).toContain('nsis')
    expect(config.mac.target).toContain('dmg')
    expect(config.linux.target).toContain('AppImage')
    expect(config.mac.extendInfo.NSCameraUsageDescription).toBeTruthy()
    expect(config.mac.extendInfo.NSMicrophoneUsageDescription).toBeTruthy()
  })

  it.each(TARGETS)('$os: the native parts exist for it and are unpacked from the asar', (t) => {
    const keyringPkg = `@napi-rs/keyring-${t.keyring}`
    const libsqlPkg = `@libsql/${t.libsql}`
    expect(optionalOf('@napi-rs/keyring')).toContain(keyringPkg)
    expect(optionalOf('libsql')).toContain(libsqlPkg)
    for (const file of [
      `node_modules/ffmpeg-static/${t.ffmpeg}`,
      `node_modules/${keyringPkg}/keyring.${t.keyring}.node`,
      `node_modules/${libsqlPkg}/index.node`,
      'node_modules/libsql/index.js'
    ])
      expect(unpacked(file), file).toBe(true)
  })

  it("this machine's native modules are where the runtime loads them from", () => {
    const arch = `${process.platform}-${process.arch}`
    const keyring = readdirSync(join(ROOT, 'node_modules/@napi-rs')).find((d) =>
      d.startsWith(`keyring-${arch}`)
    )
    expect(keyring, 'the keyring binding for this machine').toBeTruthy()
    const lib = readdirSync(join(ROOT, 'node_modules/@libsql')).find((d) => d.startsWith(arch))
    expect(lib, 'the libsql binding for this machine').toBeTruthy()
    expect(existsSync(join(ROOT, 'node_modules/@libsql', lib!, 'index.node'))).toBe(true)
  })

  it('includes the built app (main, studio, web shell, preload, renderer) and no source maps', () => {
    const out = [
      'out/main/index.js',
      'out/main/studio.js',
      'out/main/web.js',
      'out/preload/index.js'
    ]
    for (const f of [...out, 'out/renderer/index.html'])
      expect(existsSync(join(ROOT, f)), `${f} (run npm run build)`).toBe(true)
    for (const f of out) expect(included(f), f).toBe(true)
    expect(pkg.main).toBe('./out/main/index.js')
    expect(included('out/main/index.js.map')).toBe(false)
    // The app protocol serves <out/main>/../renderer: the renderer must sit there in the package.
    const assets = readdirSync(join(ROOT, 'out/renderer/assets'))
    for (const a of assets) expect(included(`out/renderer/assets/${a}`), a).toBe(true)
    const html = readFileSync(join(ROOT, 'out/renderer/index.html'), 'utf8')
    for (const ref of html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+)"/g))
      expect(existsSync(join(ROOT, 'out/renderer', ref[1]!)), ref[1]).toBe(true)
  })

  it('every package the built main process requires is a dependency (electron-builder packs only those)', () => {
    const files = [
      ...readdirSync(join(ROOT, 'out/main')).filter((f) => f.endsWith('.js')),
      ...readdirSync(join(ROOT, 'out/main/chunks')).map((f) => `chunks/${f}`)
    ]
    const required = new Set<string>()
    for (const f of files) {
      const text = readFileSync(join(ROOT, 'out/main', f), 'utf8')
      for (const m of text.matchAll(/require\("([^".][^"]*)"\)/g)) {
        const spec = m[1]!
        if (spec.startsWith('node:') || builtinModules.includes(spec) || spec === 'electron')
          continue
        required.add(
          spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!
        )
      }
    }
    expect(required.size).toBeGreaterThan(3)
    for (const name of required) expect(Object.keys(pkg.dependencies), name).toContain(name)
  })
})
