import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import { builtinModules } from 'node:module'

const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith('_'))
const NODE_GLOBALS = ['process', 'Buffer', '__dirname', '__filename', 'require', 'global']
const DOM_GLOBALS = ['window', 'document', 'navigator', 'localStorage', 'location']

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'artifacts/**',
      'bench/**',
      'src/shared/api/schema.d.ts'
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mjs,js}'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }
      ]
    }
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn'
    }
  },
  // Boundaries: which folder may import what. A wrong arrow fails lint.
  //   src/shared    pure TypeScript: no Node, no DOM, no Electron, no other src folder
  //   src/node      node-side modules shared by the app and the studio: shared only
  //   src/studio    the local studio (standalone Node): shared and node only
  //   src/main      the app's main process: core/ (plain Node), electron/ and web/ (the two shells);
  //                 only src/main/electron and src/preload import electron
  //   src/renderer  the React UI: shared and its own bridge only
  ...boundary(['src/shared/**/*.ts'], {
    forbid: ['main', 'node', 'studio', 'renderer', 'preload'],
    node: false,
    packages: ['electron', 'react', 'react-dom', 'ws', 'libsql', '@napi-rs/*', 'node-media-server'],
    globals: [...NODE_GLOBALS, ...DOM_GLOBALS],
    why: 'src/shared is pure TypeScript, used on both sides: no Node, no DOM, no Electron.'
  }),
  ...boundary(['src/node/**/*.ts'], {
    forbid: ['main', 'studio', 'renderer', 'preload'],
    packages: ['electron', 'react', 'react-dom'],
    why: 'src/node serves the app and the studio alike: it imports src/shared only.'
  }),
  ...boundary(['src/studio/**/*.ts'], {
    ignores: ['src/studio/nms-adapter.ts'],
    forbid: ['main', 'renderer', 'preload'],
    packages: ['electron', 'react', 'react-dom', 'node-media-server/*'],
    why:
      'The local studio imports src/shared and src/node only; node-media-server internals only ' +
      'through src/studio/nms-adapter.ts.'
  }),
  ...boundary(['src/studio/nms-adapter.ts'], {
    forbid: ['main', 'renderer', 'preload'],
    packages: ['electron', 'react', 'react-dom'],
    why: 'The local studio imports src/shared and src/node only.'
  }),
  ...boundary(['src/main/**/*.ts'], {
    ignores: ['src/main/electron/**'],
    forbid: ['studio', 'renderer', 'preload'],
    packages: ['electron', 'react', 'react-dom'],
    why: 'src/main/core and src/main/web are plain Node: no electron, no studio or renderer code.'
  }),
  ...boundary(['src/main/electron/**/*.ts', 'src/preload/**/*.ts'], {
    forbid: ['studio', 'renderer'],
    packages: ['react', 'react-dom'],
    why: 'The Electron shell talks to the renderer through the contract only.'
  }),
  ...boundary(['src/renderer/**/*.{ts,tsx}'], {
    forbid: ['main', 'node', 'studio', 'preload'],
    node: false,
    packages: ['electron', 'ws', 'libsql', '@napi-rs/*', 'node-media-server', 'zod'],
    globals: NODE_GLOBALS,
    why: 'The renderer imports src/shared and its own bridge only (window.onair is its way out).'
  }),
  // room: scenes
  // The live feature holds the scene program through ProgramHost (features/scenes/use-scene-program.ts):
  // the arrow runs from features/live to features/scenes, never back.
  {
    files: ['src/renderer/src/features/scenes/**/*.{ts,tsx}'],
    plugins: {
      scenes: {
        rules: {
          'no-live-import': noImportOf(
            'src/renderer/src/features/live',
            'features/scenes must not import features/live: take what the live run gives through ' +
              'ProgramHost (use-scene-program.ts), or move shared code to src/renderer/src/lib.'
          )
        }
      }
    },
    rules: { 'scenes/no-live-import': 'error' }
  }
)

/** One no-restricted-imports (and globals) rule for a folder, from the lists above. */
function boundary(files, o) {
  const patterns = [
    {
      regex: `^(\\.\\./)+(${o.forbid.join('|')})(/|$)`,
      message: o.why
    },
    ...(o.packages.length ? [{ group: o.packages, message: o.why }] : []),
    ...(o.node === false
      ? [
          { regex: '^node:', message: o.why },
          { regex: `^(${NODE_BUILTINS.join('|')})(/|$)`, message: o.why }
        ]
      : [])
  ]
  return [
    {
      files,
      ...(o.ignores ? { ignores: o.ignores } : {}),
      rules: {
        'no-restricted-imports': ['error', { patterns }],
        ...(o.globals
          ? {
              'no-restricted-globals': [
                'error',
                ...o.globals.map((name) => ({ name, message: o.why }))
              ]
            }
          : {})
      }
    }
  ]
}

// room: scenes (the rule used by the last config object)
const nodePath = await import('node:path')

/** A rule refusing any import (static, dynamic, re-export) whose resolved path lies inside `folder`. */
function noImportOf(folder, message) {
  const inside = (file) => {
    const rel = nodePath.relative(nodePath.resolve(import.meta.dirname, folder), file)
    return rel === '' || (!rel.startsWith('..') && !nodePath.isAbsolute(rel))
  }
  return {
    meta: { type: 'problem', schema: [] },
    create(context) {
      const check = (node) => {
        const spec = node.source?.value
        if (typeof spec !== 'string' || !spec.startsWith('.')) return
        if (inside(nodePath.resolve(nodePath.dirname(context.filename), spec)))
          context.report({ node: node.source, message })
      }
      return {
        ImportDeclaration: check,
        ExportNamedDeclaration: check,
        ExportAllDeclaration: check,
        ImportExpression: check
      }
    }
  }
}
