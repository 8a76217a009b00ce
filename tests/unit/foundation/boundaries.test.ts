// The folder boundaries are lint rules (the layers table in eslint.config.mjs, checked by
// eslint-rules/layers.mjs): a wrong arrow fails `npm run lint`. Each case lints one planted line as if
// it stood in that folder, with the project's own config. Relative imports are judged by the path they
// resolve to, so a detour through ../../ does not get past. The walls below them close the ways around
// the table: globals reached through the global object, computed import specifiers, one feature
// importing another, workers started by URL, packages wider than the file that needs them, and
// import circles.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const root = resolve(__dirname, '../../..')
const eslint = new ESLint({ cwd: root })

interface Row {
  imports: string[] | '*'
}

/** The rows and named crossings of the table that name no file or folder on disk. */
function stale(rooms: Record<string, Row>): string[] {
  const exists = (p: string): boolean =>
    ['', '.ts', '.tsx', '.mts', '.mjs', '.js'].some((ext) => existsSync(resolve(root, p + ext)))
  const named = Object.entries(rooms).flatMap(([room, row]) => [
    room,
    ...(row.imports === '*' ? [] : row.imports)
  ])
  // A room path with `*`, or a glob, names a pattern; the rest name one file or folder each.
  return [...new Set(named)].filter((p) => !/[*<{]/.test(p) && !exists(p))
}

async function restricted(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(`${code}\nexport const _planted = 1\n`, { filePath: file })
  return (r?.messages ?? []).filter((m) => m.ruleId?.startsWith('layers/')).map((m) => m.message)
}

describe('folder boundaries', { timeout: 60_000 }, () => {
  it.each([
    ['src/shared/x.ts', "import { readFileSync as _r } from 'node:fs'"],
    ['src/shared/x.ts', "import { join as _j } from 'path'"],
    ['src/shared/x.ts', "import { app as _a } from 'electron'"],
    ['src/shared/x.ts', 'export const _h = window.location.href'],
    ['src/shared/x.ts', 'export const _p = process.platform'],
    ['src/shared/x.ts', "import { spawnChild as _s } from '../node/process'"],
    // The contract imports no package (zod's validators of its calls are main's).
    ['src/shared/contract/x.ts', "import { z as _z } from 'zod'"],
    ['src/node/x.ts', "import { createCore as _c } from '../main/core/core'"],
    ['src/node/ffmpeg/x.ts', "import { startStudio as _s } from '../../studio/index'"],
    ['src/studio/x.ts', "import { createCore as _c } from '../main/core/core'"],
    ['src/studio/routes/x.ts', "import { app as _a } from 'electron'"],
    ['src/studio/ingest.ts', "import _C from 'node-media-server/src/core/context.js'"],
    ['src/main/core/x.ts', "import { app as _a } from 'electron'"],
    ['src/main/web/x.ts', "import { BrowserWindow as _b } from 'electron'"],
    ['src/main/core/x.ts', "import { startStudio as _s } from '../../studio/index'"],
    ['src/renderer/src/x.ts', "import { spawnChild as _s } from '../../node/process'"],
    [
      'src/renderer/src/features/x/y.tsx',
      "import { createCore as _c } from '../../../../main/core/core'"
    ],
    ['src/renderer/src/x.ts', "import { readFile as _r } from 'node:fs/promises'"],
    // The shells sit on core; core knows neither shell, and the web shell not Electron's.
    ['src/main/core/x.ts', "import { registerIpc as _r } from '../electron/ipc'"],
    [
      'src/main/core/broadcast/x.ts',
      "import type { WindowPolicy as _W } from '../../electron/window'"
    ],
    ['src/main/core/x.ts', "import { startWebShell as _s } from '../web/web-shell'"],
    ['src/main/web/x.ts', "import { registerIpc as _r } from '../electron/ipc'"],
    ['src/preload/x.ts', "import { createCore as _c } from '../main/core/core'"],
    ['src/preload/x.ts', "import { readFileSync as _r } from 'node:fs'"],
    ['src/studio/x.ts', "import { dispatch as _d } from '../main/core/dispatch'"],
    ['src/studio/ingest.ts', "import _N from 'node-media-server'"],
    ['src/renderer/src/x.ts', "import { createCore as _c } from '../../main/core/core'"],
    ['src/renderer/src/x.ts', "import { z as _z } from 'zod'"],
    ['src/renderer/src/bridge/x.ts', "import { useApi as _u } from '../lib/api'"],
    ['src/renderer/src/bridge/x.ts', "import { useState as _u } from 'react'"],
    ['src/node/x.ts', "import { z as _z } from 'zod'"],
    ['src/main/core/x.ts', "import { WebSocketServer as _W } from 'ws'"],
    // Detours: spelled through another folder, judged by where they land.
    ['src/main/core/x.ts', "import { registerIpc as _r } from '../core/../electron/ipc'"],
    ['src/main/core/x.ts', "export { registerIpc } from './../../main/electron/ipc'"],
    ['src/main/web/x.ts', "const _m = import('../../main/electron/window')"],
    ['src/shared/x.ts', "import { spawnChild as _s } from '../../src/node/process'"],
    ['src/shared/x.ts', "import { x as _x } from '../../../elsewhere/x'"],
    ['src/renderer/src/features/x/y.tsx', "import { x as _x } from '../../../../../src/studio/db'"],
    // node-av's FFmpeg includes x264 (GPL): only the encoder process loads it, and nobody imports
    // the encoder process's code (main's host speaks to it over stdin/stdout/IPC).
    ['src/main/core/x.ts', "import { Codec as _C } from 'node-av/lib'"],
    ['src/main/core/encoder/x.ts', "import { Codec as _C } from 'node-av/lib'"],
    [
      'src/main/core/encoder/x.ts',
      "import { EncodeSession as _E } from '../../../encoder/session'"
    ],
    ['src/main/core/x.ts', "import { probeEncoders as _p } from '../../encoder/video'"],
    ['src/main/electron/x.ts', "import _N from 'node-av'"],
    ['src/renderer/src/x.ts', "import _N from 'node-av/api'"],
    [
      'src/renderer/src/features/live/x.ts',
      "import { x as _x } from '../../../../encoder/matroska'"
    ],
    ['src/studio/x.ts', "import { Codec as _C } from 'node-av/lib'"],
    ['src/encoder/x.ts', "import { createCore as _c } from '../main/core/core'"],
    ['src/encoder/x.ts', "import { spawnChild as _s } from '../node/process'"],
    // A file in src outside every room of the table is refused until its folder gets a row.
    ['src/newroom/x.ts', "import { redact as _r } from '../shared/redact'"]
  ])('refuses in %s: %s', async (file, code) => {
    expect(await restricted(file, code)).not.toEqual([])
  })

  it.each([
    ['src/shared/x.ts', "import { z as _z } from 'zod'"],
    ['src/node/x.ts', "import { redact as _r } from '../shared/redact'"],
    ['src/studio/x.ts', "import { SupervisedFfmpeg as _r } from '../node/ffmpeg/supervised'"],
    ['src/studio/nms-adapter.ts', "import _C from 'node-media-server/src/core/context.js'"],
    ['src/main/core/x.ts', "import { spawnChild as _s } from '../../node/process'"],
    ['src/main/electron/x.ts', "import { app as _a } from 'electron'"],
    ['src/preload/x.ts', "import { contextBridge as _c } from 'electron'"],
    ['src/renderer/src/x.ts', "import { isRunning as _i } from '../../shared/live-state'"],
    ['src/main/web/x.ts', "import { createCore as _c } from '../core/core'"],
    ['src/main/electron/x.ts', "import { createCore as _c } from '../core/core'"],
    ['src/main/core/x.ts', "import { isOwnOrigin as _i } from '../../shared/origin'"],
    ['src/main/core/x.ts', "import { Entry as _E } from '@napi-rs/keyring'"],
    ['src/main/web/x.ts', "import { WebSocketServer as _W } from 'ws'"],
    ['src/preload/x.ts', "import type { OnairApi as _O } from '../shared/contract'"],
    ['src/studio/x.ts', "import _D from 'libsql'"],
    [
      'src/renderer/src/features/x/y.tsx',
      "import { originOf as _o } from '../../../../shared/origin'"
    ],
    ['src/renderer/src/features/x/y.tsx', "import { ensureOnair as _e } from '../../bridge'"],
    [
      'src/renderer/src/bridge/x.ts',
      "import type { OnairApi as _O } from '../../../shared/contract'"
    ],
    ['src/encoder/x.ts', "import { Codec as _C } from 'node-av/lib'"],
    ['src/encoder/x.ts', "import { readRaw as _r } from '../shared/raw-media'"],
    ['src/main/core/encoder/x.ts', "import { spawnChild as _s } from '../../../node/process'"],
    // hls.js belongs to the player (the one feature that plays HLS).
    ['src/renderer/src/features/player/x.ts', "import _H from 'hls.js'"],
    ['tests/unit/x.test.ts', "import { registerIpc as _r } from '../../src/main/electron/ipc'"],
    ['scripts/x.ts', "import { app as _a } from 'electron'"]
  ])('allows in %s: %s', async (file, code) => {
    expect(await restricted(file, code)).toEqual([])
  })

  it('judges a relative import by the path it resolves to, and says which', async () => {
    const [message] = await restricted(
      'src/shared/x.ts',
      "import { spawnChild as _s } from '../../src/node/process'"
    )
    expect(message).toContain('src/shared may not import src/node/process')
    const [outside] = await restricted('src/shared/x.ts', "import { x as _x } from '../../../x'")
    expect(outside).toContain('outside the project')
  })

  describe('walls around the table', () => {
    it.each([
      // A room's refused globals, however reached.
      ['src/shared/x.ts', 'export const _p = globalThis.process.platform'],
      ['src/shared/x.ts', 'export const _w = globalThis.window'],
      ['src/shared/x.ts', "export const _p = self['process']"],
      ['src/shared/x.ts', 'export const _p = (globalThis as { process?: unknown }).process'],
      ['src/shared/x.ts', 'export const _p = globalThis.self.process'],
      ['src/shared/x.ts', 'const { process: _p } = globalThis'],
      ['src/shared/x.ts', "export const _k = 'process' in globalThis"],
      ['src/shared/x.ts', 'export const _g = globalThis'],
      ['src/shared/x.ts', "export const _p = Reflect.get(globalThis, 'process')"],
      ['src/renderer/src/x.ts', 'export const _p = window.process'],
      ['src/renderer/src/x.ts', "export const _r = globalThis['require']"],
      ['src/renderer/src/features/live/x.ts', 'export const _b = self.Buffer'],
      ['src/renderer/src/x.ts', "const k = 'process'\nexport const _v = window[k]"],
      ['src/shared/x.ts', "export const _p = eval('process')"],
      ['src/renderer/src/x.ts', "export const _p = new Function('return process')()"],
      // Import specifiers are fixed strings everywhere under src/.
      ['src/main/core/x.ts', "const m = '../electron/ipc'\nexport const _m = import(m)"],
      ['src/shared/x.ts', 'export const _m = (n: string) => import(`./${n}`)'],
      ['src/main/core/x.ts', 'export const _m = (m: string) => require(m)'],
      [
        'src/renderer/src/x.ts',
        "const u = './w.ts'\nexport const _w = new Worker(new URL(u, import.meta.url))"
      ],
      ['src/main/core/x.ts', 'export const _m = import(`../electron/ipc`)'],
      ['src/renderer/src/x.ts', "export const _m = import.meta.glob('../../main/**/*.ts')"],
      // A feature imports another only where its row names the crossing.
      [
        'src/renderer/src/features/sessions/x.tsx',
        "import { LiveBanner as _L } from '../live/LiveBanner'"
      ],
      [
        'src/renderer/src/features/connection/x.ts',
        "import { useWhep as _u } from '../live/use-whep'"
      ],
      [
        'src/renderer/src/features/clips/x.ts',
        "import { useLive as _u } from '../live/live-context'"
      ],
      // The screens that read the live run do so through lib/live-run.ts, not the live page's code.
      ...['connection', 'sessions', 'stats', 'player', 'streams'].map((f) => [
        `src/renderer/src/features/${f}/x.ts`,
        "import { useLive as _u } from '../live/live-context'"
      ]),
      ['src/renderer/src/features/player/x.ts', "import { useWhep as _u } from '../live/use-whep'"],
      [
        'src/renderer/src/features/setup/x.ts',
        "import { AudioMeter as _A } from '../live/AudioMeter'"
      ],
      [
        'src/renderer/src/features/new-room/x.ts',
        "import { SessionsList as _S } from '../sessions/SessionsList'"
      ],
      [
        'src/renderer/src/features/live/x.ts',
        "import { SessionsList as _S } from '../sessions/SessionsList'"
      ],
      // Nor through the lower layers: lib/ and components/ import no feature.
      ['src/renderer/src/lib/x.ts', "export { useLive } from '../features/live/live-context'"],
      [
        'src/renderer/src/components/x.tsx',
        "import { SceneStage as _S } from '../features/scenes/SceneStage'"
      ],
      // Workers (and assets) started by URL are judged as imports.
      [
        'src/renderer/src/features/scenes/x.ts',
        "export const _w = new Worker(new URL('../live/engine/audio-worker.ts', import.meta.url))"
      ],
      [
        'src/renderer/src/x.ts',
        "export const _w = new Worker(new URL('../../node/process.ts', import.meta.url))"
      ],
      ['src/shared/x.ts', "export const _u = new URL('../studio/db.ts', import.meta.url)"],
      // A package is allowed to the file or folder that needs it, not to the whole renderer.
      ['src/renderer/src/features/live/x.ts', "import { Output as _O } from 'mediabunny'"],
      ['src/renderer/src/x.ts', "import { Output as _O } from 'mediabunny'"],
      ['src/renderer/src/features/live/x.ts', "import _H from 'hls.js'"],
      ['src/renderer/src/features/live/engine/x.ts', "import { Output as _O } from 'mediabunny'"],
      ['src/renderer/src/features/x/y.tsx', "import { createRoot as _c } from 'react-dom/client'"],
      // The live page's media engine: no React, no screen, no DOM globals, no other feature.
      ['src/renderer/src/features/live/engine/x.ts', "import { useState as _u } from 'react'"],
      [
        'src/renderer/src/features/live/engine/x.ts',
        "export { fallbackNote } from '../encoder-text'"
      ],
      [
        'src/renderer/src/features/live/engine/x.ts',
        "import { useLive as _u } from '../live-context'"
      ],
      [
        'src/renderer/src/features/live/engine/x.ts',
        "import { api as _a } from '../../../lib/api'"
      ],
      ['src/renderer/src/features/live/engine/x.ts', 'export const _a = window.onair'],
      ['src/renderer/src/features/live/engine/x.ts', 'export const _d = document.body'],
      ['src/renderer/src/features/live/engine/x.ts', 'export const _s = self'],
      [
        'src/renderer/src/features/live/engine/x.ts',
        "import { Program as _P } from '../../scenes/program'"
      ]
    ])('refuses in %s: %s', async (file, code) => {
      expect(await restricted(file, code)).not.toEqual([])
    })

    it.each([
      ['src/shared/x.ts', 'export const _c = globalThis.crypto'],
      ['src/shared/x.ts', 'export const _t = typeof globalThis'],
      ['src/renderer/src/x.ts', "export const _p = 'MediaStreamTrackProcessor' in globalThis"],
      ['src/renderer/src/x.ts', "export const _w = window.addEventListener('resize', () => {})"],
      ['src/main/core/x.ts', 'export const _m = import(`./core`)'],
      ['src/renderer/src/features/player/x.ts', "export const _m = import('hls.js')"],
      [
        'src/renderer/src/features/live/engine/live-mux.ts',
        "import { Output as _O } from 'mediabunny'"
      ],
      [
        'src/renderer/src/features/live/engine/live-mux.ts',
        "import { fitFrame as _f } from './frame-fit'"
      ],
      // The screens drive the engine; the engine reads fixed names of its worker's scope.
      [
        'src/renderer/src/features/live/x.ts',
        "import { RawPusher as _R } from './engine/raw-pusher'"
      ],
      [
        'src/renderer/src/features/live/engine/x.ts',
        'export const _p = (m: unknown): void => self.postMessage(m, { transfer: [] })'
      ],
      ['src/renderer/src/main.tsx', "import { createRoot as _c } from 'react-dom/client'"],
      [
        'src/renderer/src/features/streams/x.tsx',
        "import { SessionsList as _S } from '../sessions/SessionsList'"
      ],
      ['src/renderer/src/features/x/y.tsx', "import { formatBytes as _f } from '../../lib/format'"],
      [
        'src/renderer/src/features/stats/x.ts',
        "import { useLiveRun as _u } from '../../lib/live-run'"
      ],
      ['src/renderer/src/features/x/y.tsx', "import '../../styles/x.css'"],
      [
        'src/renderer/src/features/scenes/x.ts',
        "export const _w = new Worker(new URL('./frame-worker.ts', import.meta.url))"
      ]
    ])('allows in %s: %s', async (file, code) => {
      expect(await restricted(file, code)).toEqual([])
    })

    it('names only files and folders that exist (a moved file takes its crossing along)', async () => {
      const { ROOMS } = (await import(pathToFileURL(resolve(root, 'eslint.config.mjs')).href)) as {
        ROOMS: Record<string, Row>
      }
      expect(stale(ROOMS)).toEqual([])
      const moved = {
        ...ROOMS,
        'src/renderer/src/features/gone': { imports: ['src/renderer/src/features/live/gone'] }
      }
      expect(stale(moved)).toEqual([
        'src/renderer/src/features/gone',
        'src/renderer/src/features/live/gone'
      ])
    })

    it('refuses an import circle, and names it', async () => {
      // The contract (contract/streams.ts) imports stream-states.ts: importing the contract back from
      // there closes a circle.
      const [direct] = await restricted(
        'src/shared/stream-states.ts',
        "import type { StreamView as _S } from './contract'"
      )
      expect(direct).toContain(
        'Import circle: src/shared/stream-states.ts -> src/shared/contract/index.ts -> ' +
          'src/shared/contract/streams.ts -> src/shared/stream-states.ts'
      )
      // stream-health.ts -> destinations.ts -> the contract -> stream-states.ts: a longer way round.
      const [around] = await restricted(
        'src/shared/stream-states.ts',
        "import { andList as _a } from './stream-health'"
      )
      expect(around).toContain(
        'Import circle: src/shared/stream-states.ts -> src/shared/stream-health.ts'
      )
      expect(
        await restricted('src/shared/x.ts', "import type { StreamView as _S } from './contract'")
      ).toEqual([])
    })
  })
})
