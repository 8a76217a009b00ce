// The contract's headers are true (#36 §1): a file under src/shared whose header says "Types only"
// compiles to no JavaScript at all (no value table hides in it), and the contract's index re-exports
// every module of src/shared/contract, so `shared/contract` still names the whole contract.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = join(__dirname, '../../..')
const SHARED = join(ROOT, 'src/shared')
const CONTRACT = join(SHARED, 'contract')

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return walk(p)
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [p] : []
  })
}
const rel = (p: string): string => relative(ROOT, p).split(sep).join('/')

/** The comment lines a file opens with. */
const header = (code: string): string => /^(?:\/\/.*\n)+/.exec(code)?.[0] ?? ''

/** What the file leaves in JavaScript once its types are gone, comments dropped. */
function emitted(code: string): string {
  const out = ts.transpileModule(code, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      removeComments: true
    }
  }).outputText
  return out.replace(/^export \{\};?$/m, '').trim()
}

describe('the headers of src/shared', () => {
  const files = walk(SHARED).map((f) => ({ file: rel(f), code: readFileSync(f, 'utf8') }))
  const typesOnly = files.filter((f) => /\btypes only\b/i.test(header(f.code)))

  it('finds the types-only files', () => {
    expect(typesOnly.map((f) => f.file)).toEqual(
      expect.arrayContaining(['src/shared/stream-states.ts', 'src/shared/contract/calls.ts'])
    )
  })

  it('a file that says "Types only" emits no JavaScript', () => {
    const values = typesOnly
      .map((f) => ({ file: f.file, js: emitted(f.code) }))
      .filter((f) => f.js !== '')
    expect(values, 'types-only files that hold values').toEqual([])
  })

  it('each module of the contract says whether it holds types only or value tables', () => {
    const unsaid = files
      .filter((f) => f.file.startsWith('src/shared/contract/') && !f.file.endsWith('/index.ts'))
      .filter((f) => !/\b(types only|values?:)/i.test(header(f.code)))
      .map((f) => f.file)
    expect(unsaid).toEqual([])
  })

  it("the contract's index re-exports every module of its folder", () => {
    const index = readFileSync(join(CONTRACT, 'index.ts'), 'utf8')
    const modules = readdirSync(CONTRACT)
      .filter((n) => n.endsWith('.ts') && n !== 'index.ts')
      .map((n) => `./${n.replace(/\.ts$/, '')}`)
    const exported = [...index.matchAll(/^export (?:type )?\* from '([^']+)'/gm)].map((m) => m[1])
    expect(modules.length).toBeGreaterThan(5)
    expect([...exported].sort()).toEqual([...modules].sort())
  })
})
