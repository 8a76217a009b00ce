// Every import under src/ names its target as a fixed string, so the layers table (and the cycle
// check) can judge it: `import(m)`, `require(m)` and `new URL(m, import.meta.url)` with a computed m
// are refused, as are template strings with ${}. A dynamic import of a fixed name stays allowed
// (`import('hls.js')` loads the player on demand). Vite's import.meta.glob (files by pattern) is
// refused too: the table judges files, not patterns.
import { metaUrlArgument, staticString } from './layers.mjs'

const MESSAGE =
  'Import by a fixed string: a computed specifier cannot be checked against the layers table ' +
  '(eslint.config.mjs). Choose between fixed imports instead.'

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Import specifiers are fixed strings' },
    schema: []
  },
  create(context) {
    const judge = (node, spec) => {
      if (spec && staticString(spec) === undefined) context.report({ node: spec, message: MESSAGE })
    }
    return {
      ImportExpression: (n) => judge(n, n.source),
      CallExpression: (n) =>
        n.callee.type === 'Identifier' && n.callee.name === 'require' && judge(n, n.arguments[0]),
      NewExpression: (n) => judge(n, metaUrlArgument(n)),
      MetaProperty: (n) =>
        n.meta.name === 'import' &&
        n.parent.type === 'MemberExpression' &&
        !n.parent.computed &&
        n.parent.property.name?.startsWith('glob') &&
        context.report({ node: n.parent, message: MESSAGE })
    }
  }
}
