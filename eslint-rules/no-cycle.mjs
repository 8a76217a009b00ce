// No import circles among the project's own files: a file may not import (directly or through others)
// a file that imports it back. Type-only imports count too: a circle of types is still one concept
// split across two files that need each other. Only relative specifiers are followed (packages cannot
// import the project); workers started with new URL(..., import.meta.url) are a separate module graph
// and are not followed. The file being linted is read from its AST, every other file from disk (its
// imports parsed by TypeScript's preProcessFile, cached by modification time).
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, relative, resolve, sep } from 'node:path'
import ts from 'typescript'
import { staticString } from './layers.mjs'

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.mjs', '.cjs', '.jsx']
const cache = new Map() // absolute file -> { mtimeMs, checkedAt, deps }
// A file's modification time is checked at most this often: a lint run asks for each file hundreds
// of times, an editor's long-lived ESLint sees an edit within a second.
const RECHECK_MS = 1000

function isFile(p) {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isFile() ?? false
  } catch {
    return false
  }
}

/** The project file a relative specifier names, or null (a package, an asset, a missing file). */
export function resolveImport(specifier, fromFile) {
  const spec = specifier.split('?')[0]
  if (!spec.startsWith('.')) return null
  const base = resolve(dirname(fromFile), spec)
  const stem = base.replace(/\.(js|jsx|mjs|cjs)$/, '')
  const candidates = [
    base,
    ...EXTENSIONS.map((e) => base + e),
    ...EXTENSIONS.map((e) => stem + e),
    ...EXTENSIONS.map((e) => `${base}${sep}index${e}`)
  ]
  const found = candidates.find(isFile)
  return found && !found.includes(`${sep}node_modules${sep}`) && /\.[cm]?[jt]sx?$/.test(found)
    ? found
    : null
}

function depsOf(file) {
  const now = Date.now()
  const known = cache.get(file)
  if (known && now - known.checkedAt < RECHECK_MS) return known.deps
  let mtimeMs
  try {
    mtimeMs = statSync(file).mtimeMs
  } catch {
    return []
  }
  const hit = cache.get(file)
  if (hit && hit.mtimeMs === mtimeMs) {
    hit.checkedAt = now
    return hit.deps
  }
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  const deps = [...new Set(info.importedFiles.map((f) => resolveImport(f.fileName, file)))].filter(
    Boolean
  )
  cache.set(file, { mtimeMs, checkedAt: now, deps })
  return deps
}

/** The shortest chain of imports from one of `starts` to `target`, or null. */
function pathBack(starts, target) {
  const from = new Map(starts.map((s) => [s, null]))
  const queue = [...starts]
  while (queue.length) {
    const at = queue.shift()
    if (at === target) {
      const chain = []
      for (let n = at; n !== null; n = from.get(n)) chain.unshift(n)
      return chain
    }
    for (const next of depsOf(at)) {
      if (!from.has(next)) {
        from.set(next, at)
        queue.push(next)
      }
    }
  }
  return null
}

export default {
  meta: {
    type: 'problem',
    docs: { description: "No import circles among the project's files" },
    schema: []
  },
  create(context) {
    const file = context.filename
    if (!existsSync(dirname(file))) return {}
    const root = context.cwd
    const name = (p) => relative(root, p).split(sep).join('/')
    const imports = []
    const add = (node, spec) => {
      const s = staticString(spec)
      const target = s === undefined ? null : resolveImport(s, file)
      if (target && target !== file) imports.push({ node, target })
    }
    return {
      ImportDeclaration: (n) => add(n, n.source),
      ExportNamedDeclaration: (n) => n.source && add(n, n.source),
      ExportAllDeclaration: (n) => add(n, n.source),
      ImportExpression: (n) => add(n, n.source),
      TSImportType: (n) => add(n, n.argument?.literal ?? n.argument),
      'Program:exit'() {
        // Usually nothing leads back: one search from all the file's imports settles that.
        if (!pathBack([...new Set(imports.map((i) => i.target))], file)) return
        const seen = new Set()
        for (const { node, target } of imports) {
          if (seen.has(target)) continue
          seen.add(target)
          const chain = pathBack([target], file)
          if (chain) {
            context.report({
              node,
              message: `Import circle: ${[file, ...chain].map(name).join(' -> ')}. Move what both need into a file both import.`
            })
          }
        }
      }
    }
  }
}
