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
// A file belongs to the room with the longest path that contains it. A linted file in no room is
// reported too, so a new folder has to be given its place in the table.
import { builtinModules } from 'node:module'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { minimatch } from 'minimatch'

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')))
const posix = (p) => p.split(sep).join('/')
const GLOB = { dot: true }

/** The room of a project-relative path: the longest room path equal to it or containing it. */
export function roomOf(rooms, file) {
  let best = null
  for (const room of Object.keys(rooms)) {
    if ((file === room || file.startsWith(room + '/')) && (!best || room.length > best.length)) {
      best = room
    }
  }
  return best
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

function pathAllowed(path, globs) {
  if (globs === '*') return true
  return globs.some((g) => minimatch(path, g, GLOB) || minimatch(`${path}/index`, g, GLOB))
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
    const rule = rooms[room]
    const check = (node, source) => {
      if (typeof source !== 'string') return
      const why = refusal(room, rule, classify(source, file, root))
      if (why) context.report({ node, message: `${why} ('${source}'). ${rule.why}` })
    }
    const literal = (n) => (n && n.type === 'Literal' ? n.value : undefined)
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
        check(n, literal(n.arguments[0]))
    }
  }
}
