// The one inventory of the code is docs/architecture.md's "Folders and who may import what": every
// folder under src/ is named there, in the bullet of the room that holds it, and every file it names
// exists. (The README points to it instead of keeping a second list.)
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(__dirname, '../../..')
const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
const section = doc.split('## Folders and who may import what')[1]!.split('\n## ')[0]!

interface Bullet {
  root: string
  tokens: string[]
}

/** `a/{b,c}/d` -> a/b/d, a/c/d (one level of braces, as the doc writes them). */
function expand(token: string): string[] {
  const m = /^(.*)\{([^}]*)\}(.*)$/.exec(token)
  return m ? m[2]!.split(',').flatMap((x) => expand(`${m[1]}${x.trim()}${m[3]}`)) : [token]
}

const bullets: Bullet[] = section
  .split('\n')
  .filter((l) => l.startsWith('- `src/'))
  .map((l) => {
    const tokens = [...l.matchAll(/`([^`]+)`/g)].flatMap((m) => expand(m[1]!))
    return { root: tokens[0]!.replace(/\/$/, ''), tokens }
  })

function walk(dir: string, out: { dirs: string[]; files: string[] }): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) {
      out.dirs.push(p)
      walk(p, out)
    } else out.files.push(p)
  }
}
const tree = { dirs: [] as string[], files: [] as string[] }
walk(join(ROOT, 'src'), tree)
const rel = (p: string): string => relative(ROOT, p).split(sep).join('/')
const dirs = tree.dirs.map(rel)
const files = tree.files.map(rel)

function bulletOf(path: string): Bullet | undefined {
  return bullets
    .filter((b) => path === b.root || path.startsWith(`${b.root}/`))
    .sort((a, b) => b.root.length - a.root.length)[0]
}

describe('the inventory in docs/architecture.md', () => {
  it('has a bullet for each top room', () => {
    expect(bullets.map((b) => b.root)).toEqual(
      expect.arrayContaining([
        'src/shared',
        'src/node',
        'src/main/core',
        'src/studio',
        'src/renderer'
      ])
    )
  })

  it("names every folder under src/ in its room's bullet", () => {
    const missing = dirs.filter((d) => {
      // A folder that only holds rooms (src/main) is named by their bullets.
      if (bullets.some((b) => b.root.startsWith(`${d}/`))) return false
      const b = bulletOf(d)
      if (!b) return true
      if (d === b.root) return false
      const segs = d.split('/')
      const tails = segs.map((_, i) => segs.slice(i).join('/')).filter((t) => t.length > 0)
      // Named as a folder (`uploads/`, `broadcast/uplink`) or as the folder of a file it names
      // (`ffmpeg/locate.ts`, `features/live`).
      return !b.tokens.some((t) => {
        const name = t.replace(/\/$/, '')
        return tails.some(
          (tail) =>
            (name === tail && (t.endsWith('/') || tail.includes('/'))) ||
            name.startsWith(`${tail}/`)
        )
      })
    })
    expect(missing, 'folders the inventory does not name').toEqual([])
  })

  it('names only files that exist', () => {
    const named = bullets.flatMap((b) =>
      b.tokens
        .filter((t) => /\.(ts|tsx|mjs|mts|yaml)$/.test(t) && !/[*<]/.test(t))
        .map((t) => ({ root: b.root, t }))
    )
    expect(named.length).toBeGreaterThan(40)
    const gone = named.filter(
      ({ root, t }) =>
        !files.some((f) => f === t || (f.startsWith(`${root}/`) && f.endsWith(`/${t}`)))
    )
    expect(gone, 'files the inventory names that are not there').toEqual([])
  })
})
