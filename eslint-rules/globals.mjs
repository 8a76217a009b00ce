// The globals a room refuses (the `globals` of its row in the layers table), however they are reached:
// by name (`process`), through the global object (`globalThis.process`, `window['require']`,
// `(self as any).process`, `window.self.process`, `'process' in globalThis`), or by taking the global
// object apart (`const { process } = globalThis`). Indexing it by a computed name is refused, since
// the name it reaches cannot be checked. Where a room refuses `window` too (src/shared: neither side's
// globals), the global object may only be read by fixed names: copying it (`const g = globalThis`) or
// passing it on (`Reflect.get(globalThis, 'process')`) is refused as well. The renderer hands `window`
// and a worker's `self` to its own code, so there that is left to the names it reads.
// `typeof globalThis` and `'x' in globalThis` with an allowed x pass. Code made from text (`eval`,
// `Function`) could reach any global, so a room that refuses globals refuses those two as values.
import { relative, sep } from 'node:path'
import { roomOf } from './layers.mjs'

/** The names the global object goes by in a browser, a worker and Node. */
const GLOBAL_OBJECTS = new Set([
  'globalThis',
  'window',
  'self',
  'global',
  'frames',
  'parent',
  'top'
])
const CODE_FROM_TEXT = new Set(['eval', 'Function'])
const TS_WRAPPERS = new Set([
  'TSAsExpression',
  'TSNonNullExpression',
  'TSSatisfiesExpression',
  'TSTypeAssertion',
  'ChainExpression'
])

function staticName(node, computed) {
  if (!computed && node.type === 'Identifier') return node.name
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0)
    return node.quasis[0].value.cooked
  return null
}

export default {
  meta: {
    type: 'problem',
    docs: { description: "A room's refused globals, by name or through the global object" },
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
    const rel = relative(context.cwd, context.filename).split(sep).join('/')
    const room = roomOf(rooms, rel)
    const row = room && rooms[room]
    if (!row?.globals?.length) return {}
    const refused = new Set(row.globals)
    const namesOnly = refused.has('window')
    const report = (node, what) =>
      context.report({ node, message: `${room} may not use ${what}. ${row.why}` })

    /** Where the global object (node) is used: only fixed, allowed names may be read from it. */
    function judge(node, via) {
      let at = node
      while (TS_WRAPPERS.has(at.parent.type)) at = at.parent
      const p = at.parent
      if (p.type === 'MemberExpression' && p.object === at) {
        const name = staticName(p.property, p.computed)
        if (name === null) return report(p, `the global object indexed by a computed name (${via})`)
        if (refused.has(name)) return report(p, `the global '${name}' (through ${via})`)
        if (GLOBAL_OBJECTS.has(name)) return judge(p, `${via}.${name}`)
        return
      }
      if (p.type === 'UnaryExpression' && p.operator === 'typeof') return
      if (p.type === 'BinaryExpression' && p.operator === 'in' && p.right === at) {
        const name = staticName(p.left, true)
        if (name === null) return report(p, `a computed name tested on the global object (${via})`)
        if (refused.has(name)) return report(p, `the global '${name}' (tested on ${via})`)
        return
      }
      const pattern =
        p.type === 'VariableDeclarator' && p.init === at
          ? p.id
          : p.type === 'AssignmentExpression' && p.right === at
            ? p.left
            : null
      if (pattern?.type === 'ObjectPattern') {
        for (const prop of pattern.properties) {
          if (prop.type === 'RestElement') {
            report(prop, `the rest of the global object (${via})`)
            continue
          }
          const name = staticName(prop.key, prop.computed)
          if (name === null)
            report(prop, `the global object taken apart by a computed name (${via})`)
          else if (refused.has(name)) report(prop, `the global '${name}' (taken from ${via})`)
        }
        return
      }
      if (namesOnly) report(at, `the global object (${via}) as a value: read fixed names from it`)
    }

    return {
      'Program:exit'(program) {
        const scope = context.sourceCode.getScope(program)
        const refs = [...scope.through]
        // Globals declared by the config (ESLint's `globals`) are variables without a definition.
        for (const v of scope.variables) if (v.defs.length === 0) refs.push(...v.references)
        for (const ref of refs) {
          const id = ref.identifier
          if (refused.has(id.name)) report(id, `the global '${id.name}'`)
          else if (CODE_FROM_TEXT.has(id.name) && ref.isValueReference !== false)
            report(id, `'${id.name}' (code made from text can reach any global)`)
          else if (GLOBAL_OBJECTS.has(id.name)) judge(id, id.name)
        }
      }
    }
  }
}
