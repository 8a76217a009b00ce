// A quiet `npm ci`: every warning it prints must be one a user can act on. Two of npm's warnings come
// from the lock file itself, so they are checked there: a package whose engines refuse the Node version
// the README asks for (EBADENGINE), and an install script allowScripts does not decide on.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { minVersion, satisfies } from 'semver'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '../../..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string }
  allowScripts: Record<string, boolean>
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<
    string,
    { version?: string; engines?: { node?: string }; hasInstallScript?: boolean; link?: boolean }
  >
}
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')

const locked = Object.entries(lock.packages).filter(([path]) => path !== '')
/** `node_modules/a/node_modules/@s/b` -> `@s/b`. */
const nameOf = (path: string): string => path.slice(path.lastIndexOf('node_modules/') + 13)

describe('a quiet npm ci', () => {
  it('the README, package.json and every locked package agree on the oldest Node', () => {
    const said = /Node\.js >= (\d+\.\d+)/.exec(readme)?.[1]
    expect(said, 'the README names the Node version it needs').toBeTruthy()
    const oldest = minVersion(pkg.engines.node)!.version
    expect(oldest).toBe(`${said}.0`)
    const refusing = locked
      .filter(([, p]) => p.engines?.node && !satisfies(oldest, p.engines.node))
      .map(([path, p]) => `${nameOf(path)}@${p.version} wants node ${p.engines!.node}`)
    expect(refusing).toEqual([])
    // And the Node running these tests (CI's), which the README's range must include.
    expect(satisfies(process.version, pkg.engines.node)).toBe(true)
  })

  it('allowScripts decides on exactly the locked packages that have install scripts', () => {
    const withScripts = [
      ...new Set(locked.filter(([, p]) => p.hasInstallScript).map(([path]) => nameOf(path)))
    ].sort()
    // An entry is a name, or a name pinned to versions (`esbuild@0.28.2`, as `approve` writes it).
    const entries = Object.entries(pkg.allowScripts).map(
      ([key, allowed]) => [key.replace(/(?<=.)@.*$/, ''), allowed] as const
    )
    expect([...new Set(entries.map(([name]) => name))].sort()).toEqual(withScripts)
    // The binaries the app, the build and the installers need are fetched by these three.
    for (const needed of ['electron', 'esbuild', 'ffmpeg-static'])
      expect(
        entries.some(([name, allowed]) => name === needed && allowed),
        needed
      ).toBe(true)
  })
})
