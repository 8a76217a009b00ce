// The layering rule: each room (a folder, or a single file) lists what it may import, and anything else
// fails lint. Like VS Code's code-layering check, a relative specifier is first RESOLVED against the
// importing file and the resolved path (relative to the project root) is matched against the room's
// allowed globs, so `../../x` is judged by where it lands, not by how it is spelled. Bare specifiers
// are judged against the room's package list, Node built-ins by the room's `node` flag.
//
// Options: one object { rooms }, where rooms maps a room path ('src/main/core',
// 'src/studio/nms-adapter.ts') to
//   imports:  globs of project paths the room may import, or '*' for anything
//   packages: package patterns the room may import ('zod', '@napi-rs/*'; a plain name also covers its
//             subpaths), or '*' for any package
//   node:     true when Node built-ins ('node:fs', 'path') are allowed
//   why:      the sentence shown with each refusal
// A file belongs to the most specific room that contains it (a `*` segment matches one folder, and
// '<self>' in that row's globs stands for the folder it matched). A linted file in no room is
// reported too, so a new folder has to be given its place in the table.
import { builtinModules } from 'node:module'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { minimatch } from 'minimatch'

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')))
const posix = (p) => p.split(sep).join('/')
const GLOB = { dot: true }

/**
 * The room of a project-relative path: the most specific room path equal to it or containing it. A
 * segment `*` in a room path matches any one folder ('src/renderer/src/features/*': each feature is its
 * own room); a room with more segments wins, and at equal depth the one with fewer `*`.
 */
export function roomOf(rooms, file) {
  return roomMatch(rooms, file)?.room ?? null
}

/** The room (its key in the table) and the folder or file it matched for this path (`*` filled in). */
export function roomMatch(rooms, file) {
  const parts = file.split('/')
  let best = null
  for (const room of Object.keys(rooms)) {
    const segs = room.split('/')
    if (segs.length > parts.length) continue
    if (!segs.every((s, i) => s === '*' || s === parts[i])) continue
    const stars = segs.filter((s) => s === '*').length
    if (!best || segs.length > best.depth || (segs.length === best.depth && stars < best.stars)) {
      best = { room, path: parts.slice(0, segs.length).join('/'), depth: segs.length, stars }
    }
  }
  return best && { room: best.room, path: best.path }
}

/** A specifier written as a fixed string ('x' or `x` without ${}), else undefined. */
export function staticString(n) {
  if (!n) return undefined
  if (n.type === 'Literal' && typeof n.value === 'string') return n.value
  if (n.type === 'TemplateLiteral' && n.expressions.length === 0) return n.quasis[0].value.cooked
  return undefined
}

/** `new URL('./x.ts', import.meta.url)`: how Vite starts a worker or loads an asset beside a file. */
export function metaUrlArgument(n) {
  const [first, second] = n.arguments
  const isMetaUrl =
    second?.type === 'MemberExpression' &&
    second.object.type === 'MetaProperty' &&
    second.object.meta.name === 'import' &&
    second.object.property.name === 'meta' &&
    !second.computed &&
    second.property.name === 'url'
  return n.callee.type === 'Identifier' && n.callee.name === 'URL' && isMetaUrl ? first : null
}

/** What a specifier names: a project path (resolved), a Node built-in or a package. */
export function classify(specifier, fromFile, root) {
  const spec = specifier.split('?')[0] // Vite suffixes: './x.css?inline', './w?worker'
  if (spec.startsWith('.') || isAbsolute(spec)) {
    return { kind: 'path', path: posix(relative(root, resolve(dirname(fromFile), spec))) }
  }
  const name = spec.startsWith('node:') ? spec.slice(5) : spec
  if (spec.startsWith('node:') || BUILTINS.has(name) || BUILTINS.has(name.split('/')[0])) {
    return { kind: 'node', name: spec }
  }
  return { kind: 'package', name: spec }
}

function packageAllowed(name, patterns) {
  if (patterns === '*') return true
  return patterns.some((p) => minimatch(name, p, GLOB) || minimatch(name, `${p}/**`, GLOB))
}

const SOURCE_EXT = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/

function pathAllowed(path, globs) {
  if (globs === '*') return true
  // Imports are spelled without an extension, worker URLs with one: both are judged alike.
  const bare = path.replace(SOURCE_EXT, '')
  return globs.some(
    (g) =>
      minimatch(path, g, GLOB) || minimatch(bare, g, GLOB) || minimatch(`${path}/index`, g, GLOB)
  )
}

/** Null when the room may import it, else the reason in words. */
export function refusal(room, rule, target) {
  if (target.kind === 'path') {
    return pathAllowed(target.path, rule.imports)
      ? null
      : `${room} may not import ${target.path.startsWith('..') ? 'outside the project' : target.path}`
  }
  if (target.kind === 'node') {
    return rule.node ? null : `${room} may not import Node's '${target.name}'`
  }
  return packageAllowed(target.name, rule.packages ?? [])
    ? null
    : `${room} may not import the package '${target.name}'`
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Each folder imports only what its row of the layers table allows' },
    schema: [
      {
        type: 'object',
        properties: { rooms: { type: 'object' } },
        required: ['rooms'],
        additionalProperties: false
      }
    ]
  },
  create(context) {
    const { rooms } = context.options[0]
    const root = context.cwd
    const file = context.filename
    const rel = posix(relative(root, file))
    const room = roomOf(rooms, rel)
    if (!room) {
      return {
        Program(node) {
          context.report({
            node,
            message: `${rel} is in no room of the layers table (eslint.config.mjs): give its folder a row.`
          })
        }
      }
    }
    const row = rooms[room]
    // '<self>' in a row's globs is the folder the room matched (for a `*` room: this feature; for a
    // one-file room: the folder it is in).
    const matched = roomMatch(rooms, rel).path
    const self = SOURCE_EXT.test(matched) ? posix(dirname(matched)) : matched
    const rule = {
      ...row,
      imports: row.imports === '*' ? '*' : row.imports.map((g) => g.split('<self>').join(self))
    }
    const check = (node, source) => {
      if (typeof source !== 'string') return
      const why = refusal(room, rule, classify(source, file, root))
      if (why) context.report({ node, message: `${why} ('${source}'). ${rule.why}` })
    }
    const literal = staticString
    return {
      ImportDeclaration: (n) => check(n.source, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n.source, n.source.value),
      ExportAllDeclaration: (n) => check(n.source, n.source.value),
      ImportExpression: (n) => check(n.source, literal(n.source)),
      TSImportEqualsDeclaration: (n) =>
        n.moduleReference.type === 'TSExternalModuleReference' &&
        check(n.moduleReference, literal(n.moduleReference.expression)),
      TSImportType: (n) => check(n, literal(n.argument?.literal ?? n.argument)),
      CallExpression: (n) =>
        n.callee.type === 'Identifier' &&
        n.callee.name === 'require' &&
        n.arguments.length === 1 &&
        check(n, literal(n.arguments[0])),
      // A worker (or asset) started with new URL('./x.ts', import.meta.url) is an import too.
      NewExpression: (n) => {
        const arg = metaUrlArgument(n)
        const spec = literal(arg)
        if (spec !== undefined && (spec.startsWith('.') || spec.startsWith('/'))) check(arg, spec)
      }
    }
  }
}
