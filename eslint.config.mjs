import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import layers from './eslint-rules/layers.mjs'
import layerGlobals from './eslint-rules/globals.mjs'
import literalImports from './eslint-rules/literal-imports.mjs'
import noCycle from './eslint-rules/no-cycle.mjs'

const NODE_GLOBALS = ['process', 'Buffer', '__dirname', '__filename', 'require', 'global']
const DOM_GLOBALS = ['window', 'document', 'navigator', 'localStorage', 'location']

// Who may import what. imports: globs of (resolved) project paths ('<self>' is the room's own folder);
// packages: npm packages (a name covers its subpaths), '*' for any; node: Node built-ins allowed;
// globals: globals refused, by name or through the global object (eslint-rules/globals.mjs).
// A room path may be one file, and a `*` segment makes each folder there a room of its own.
const SHARED = 'src/shared/**'
const NODE = 'src/node/**'
const CORE = 'src/main/core/**'
const FEATURES = 'src/renderer/src/features'
// The renderer's lower layers: what every feature may import. They import no feature (else a feature
// could reach another through them).
const LOWER = [
  SHARED,
  'src/renderer/src/lib/**',
  'src/renderer/src/components/**',
  'src/renderer/src/bridge/**',
  'src/renderer/src/styles/**'
]
// A feature imports src/shared, the renderer's lower layers and itself; another feature only where
// its row names that file, with the reason (a wall by default, each crossing named).
const FEATURE = {
  imports: [...LOWER, '<self>/**'],
  packages: ['react'],
  node: false,
  globals: NODE_GLOBALS,
  why:
    'A feature imports src/shared, lib/, components/, bridge/, styles/ and itself; any other feature only ' +
    'through a crossing its row in ROOMS names.'
}
/** A feature's row with the crossings into other features it may make (each named in a comment). */
const feature = (crossings, more = {}) => ({
  ...FEATURE,
  ...more,
  imports: [...FEATURE.imports, ...crossings.map((f) => `${FEATURES}/${f}`)]
})
const LIVE = feature(
  [
    // The live page hosts the scene program (the scenes room never imports live; see its row).
    'scenes/program',
    'scenes/mixer',
    'scenes/ProgramStatus',
    'scenes/SceneStage',
    'scenes/ScenesPanel',
    'scenes/use-scene-program',
    // A camera's or a screen's sound goes through the scene's mix, shown with its mixer (source-mix.ts).
    'scenes/MixerPanel',
    'scenes/MicStatus',
    'scenes/use-mix-settings',
    // The live bar shows the run's destinations, viewers and moments, each owned by its feature.
    'destinations/DestinationsSummary',
    'viewers/ViewerCount',
    'clips/LiveMoments',
    // The Output form runs the setup test again (the first-run guide's), owned by features/setup.
    'setup/SetupTestButton'
  ],
  { why: FEATURE.why + ' The live page composes the others: the crossings its row names.' }
)
export const ROOMS = {
  'src/shared': {
    imports: [SHARED],
    packages: ['zod'],
    node: false,
    globals: [...NODE_GLOBALS, ...DOM_GLOBALS],
    why: 'src/shared is pure TypeScript, used on both sides: no Node, no DOM, no Electron.'
  },
  'src/shared/contract': {
    imports: [SHARED],
    packages: [],
    node: false,
    globals: [...NODE_GLOBALS, ...DOM_GLOBALS],
    why:
      'The contract (types and its tables of names) imports src/shared only, no package: its argument ' +
      'validators (zod) are in main/core/contract-schema.ts.'
  },
  'src/node': {
    imports: [SHARED, NODE],
    packages: ['ffmpeg-static'],
    node: true,
    why: 'src/node serves the app and the studio alike: it imports src/shared only.'
  },
  'src/studio': {
    imports: [SHARED, NODE, 'src/studio/**'],
    packages: ['ajv', 'ajv-formats', 'libsql'],
    node: true,
    why:
      'The local studio imports src/shared and src/node only; node-media-server only through ' +
      'src/studio/nms-adapter.ts.'
  },
  'src/studio/live': {
    imports: [SHARED, NODE, 'src/studio/**'],
    packages: [],
    node: true,
    why: "A live run's parts (live.ts names them): src/shared, src/node and the studio; no package."
  },
  'src/studio/webrtc': {
    imports: [SHARED, NODE, 'src/studio/**'],
    packages: ['werift'],
    node: true,
    why: 'WHIP/WHEP in the studio: src/shared, src/node, the studio, and werift (the WebRTC stack) only here.'
  },
  'src/studio/uploads': {
    imports: [SHARED, NODE, 'src/studio/**'],
    packages: ['@tus/server', '@tus/file-store'],
    node: true,
    why: 'Uploaded assets: src/shared, src/node, the studio, and the tus server (@tus/server, @tus/file-store) only here.'
  },
  'src/studio/nms-adapter.ts': {
    imports: [SHARED, NODE, 'src/studio/**'],
    packages: ['node-media-server'],
    node: true,
    why: 'The node-media-server adapter imports src/shared, src/node and the studio only.'
  },
  'src/main/core': {
    imports: [SHARED, NODE, CORE],
    packages: ['@napi-rs/keyring', 'zod'],
    node: true,
    why: 'src/main/core is plain Node under both shells: no electron, no shell, studio or renderer code.'
  },
  'src/main/core/encoder': {
    imports: [SHARED, NODE, '<self>/**', 'src/main/core/child-command'],
    packages: [],
    node: true,
    why:
      "Main's host of the encoder process: src/shared, src/node (its only way to start a child) and " +
      'itself; never node-av or src/encoder (GPL x264 runs in the encoder process only).'
  },
  'src/encoder': {
    imports: [SHARED, 'src/encoder/**'],
    packages: ['node-av'],
    node: true,
    why:
      'The encoder process: src/shared, itself and node-av (FFmpeg with x264, GPL): the only room that ' +
      'imports node-av, and no other room imports it.'
  },
  'src/main/core/setup-test': {
    imports: [SHARED, NODE, CORE],
    packages: [],
    node: true,
    why:
      'The setup test: core (the active service, the encoder host), src/node (ffmpeg through its ' +
      'process helpers) and src/shared (the recommendation rule); nothing else.'
  },
  'src/main/core/uploads': {
    imports: [SHARED, NODE, CORE],
    packages: ['tus-js-client'],
    node: true,
    why: 'Uploads to the service: core plus the tus client (tus-js-client), which only this folder imports.'
  },
  'src/main/web': {
    imports: [SHARED, NODE, CORE, 'src/main/web/**'],
    packages: ['ws'],
    node: true,
    why: 'The web shell serves core over HTTP: it imports core, src/node and src/shared, never Electron.'
  },
  'src/main/electron': {
    imports: [SHARED, NODE, CORE, 'src/main/electron/**'],
    packages: ['electron'],
    node: true,
    why: 'The Electron shell imports core, src/node and src/shared; it talks to the renderer through the contract.'
  },
  'src/preload': {
    imports: [SHARED, 'src/preload/**'],
    packages: ['electron'],
    node: false,
    why: 'The preload (sandboxed) exposes the contract: it imports electron and src/shared only.'
  },
  'src/renderer': {
    imports: [SHARED, 'src/renderer/**'],
    packages: ['react'],
    node: false,
    globals: NODE_GLOBALS,
    why: 'The renderer imports src/shared and its own code only (window.onair is its way out).'
  },
  'src/renderer/src/main.tsx': {
    imports: [SHARED, 'src/renderer/**'],
    packages: ['react', 'react-dom'],
    node: false,
    globals: NODE_GLOBALS,
    why: 'main.tsx mounts the app: the only renderer file that imports react-dom.'
  },
  'src/renderer/src/lib': {
    imports: LOWER,
    packages: ['react'],
    node: false,
    globals: NODE_GLOBALS,
    why: 'lib/ is below every feature: src/shared, components/, bridge/, styles/ and itself, no feature.'
  },
  'src/renderer/src/components': {
    imports: LOWER,
    packages: ['react'],
    node: false,
    globals: NODE_GLOBALS,
    why: 'components/ is below every feature: src/shared, lib/, bridge/, styles/ and itself, no feature.'
  },
  [`${FEATURES}/*`]: FEATURE,
  [`${FEATURES}/scenes`]: {
    ...FEATURE,
    why:
      'features/scenes never imports features/live (or another feature): the live run reaches the ' +
      'scene program through ProgramHost (use-scene-program.ts); code both need lives in src/renderer/src/lib.'
  },
  [`${FEATURES}/live`]: LIVE,
  // The live page's media engine: the pushers that feed main (WebCodecs, raw frames to Onair's
  // encoder, MediaRecorder), WHIP, their readers, scalers, muxer and sound. No React, no DOM: the
  // screens drive it, and it calls main only through the OnairApi it is handed.
  [`${FEATURES}/live/engine`]: {
    imports: [SHARED, '<self>/**'],
    packages: [],
    node: false,
    globals: [...NODE_GLOBALS, ...DOM_GLOBALS],
    why:
      "features/live/engine is the page's media engine: src/shared and itself, no React, no DOM " +
      'globals, no screen of the live page or other feature.'
  },
  [`${FEATURES}/live/engine/live-mux.ts`]: {
    imports: [SHARED, '<self>/**'],
    packages: ['mediabunny'],
    node: false,
    globals: [...NODE_GLOBALS, ...DOM_GLOBALS],
    why: 'live-mux.ts writes the local copy: the only renderer file that imports mediabunny.'
  },
  // The first-run guide adds a connection with the Connection screen's form and its status.
  [`${FEATURES}/setup`]: feature([
    'connection/AddConnectionForm',
    'connection/use-connection-status'
  ]),
  // The screens that show or guard the live run read it through lib/live-run.ts (no crossing).
  [`${FEATURES}/player`]: feature(
    [
      // A session's clips are listed beside its player; a clip that failed is worded as they word it.
      'clips/SessionMoments',
      'clips/clip-text'
    ],
    {
      packages: ['react', 'hls.js'],
      why: FEATURE.why + ' hls.js only in features/player.'
    }
  ),
  [`${FEATURES}/streams`]: feature([
    // The stream page shows the stream's sessions, destinations and viewer peak, each owned by its
    // feature; its forms edit profiles with the profiles feature's editor and checks.
    'sessions/SessionsList',
    'destinations/DestinationsSection',
    'viewers/ViewerCount',
    'profiles/ProfilesEditor',
    'profiles/IssueList',
    'profiles/profile-rows'
  ]),
  'src/renderer/src/bridge': {
    imports: [SHARED, 'src/renderer/src/bridge/**'],
    packages: [],
    node: false,
    globals: NODE_GLOBALS,
    why: 'The bridge is the bottom of the renderer: src/shared and itself, no UI code, no packages.'
  },
  tests: { imports: '*', packages: '*', node: true, why: 'Tests may import anything.' },
  scripts: { imports: '*', packages: '*', node: true, why: 'Scripts may import anything.' }
}

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
  // Layers: the table above is the layering: each room lists what it may import, and nothing else
  // passes (eslint-rules/layers.mjs resolves relative paths first, so `../../x` is judged by where it
  // lands, and workers started with new URL('./x', import.meta.url) are judged as imports). A file
  // belongs to the most specific room that contains it; a file under src/ in no room fails lint until
  // its folder gets a row. The globals a room refuses are refused however reached (globals.mjs).
  {
    files: ['{src,tests,scripts}/**/*.{ts,tsx,mts,mjs,js}'],
    plugins: {
      layers: {
        rules: {
          imports: layers,
          globals: layerGlobals,
          'literal-imports': literalImports,
          'no-cycle': noCycle
        }
      }
    },
    rules: {
      'layers/imports': ['error', { rooms: ROOMS }],
      'layers/globals': ['error', { rooms: ROOMS }],
      // No two files import each other, directly or around a circle (eslint-rules/no-cycle.mjs).
      'layers/no-cycle': 'error'
    }
  },
  // Under src/ every import names a fixed file, so the table can judge it.
  {
    files: ['src/**/*.{ts,tsx,mts,mjs,js}'],
    rules: { 'layers/literal-imports': 'error' }
  },
  // room: supervisor
  // Every child process of the app and of the studio starts through src/node/process.ts (no console
  // window on Windows, tracked for the whole-tree kill on exit). The layers table allows Node built-ins
  // to whole rooms; this narrows child_process to one file. scripts/ and tests/ may start processes
  // directly (they are not shipped).
  {
    files: ['src/**/*.{ts,tsx,mts,cts,js,mjs,cjs}'],
    ignores: ['src/node/process.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['child_process', 'node:child_process'].map((name) => ({
            name,
            message:
              'Start child processes through src/node/process.ts (spawnChild, runChild): windowsHide and tracking.'
          }))
        }
      ]
    }
  }
)
