// The folder boundaries are lint rules (eslint.config.mjs): a wrong arrow fails `npm run lint`. Each
// case lints one planted line as if it stood in that folder, with the project's own config.
import { resolve } from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const eslint = new ESLint({ cwd: resolve(__dirname, '../../..') })

async function restricted(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(`${code}\nexport const _planted = 1\n`, { filePath: file })
  return (r?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals')
    .map((m) => m.message)
}

describe('folder boundaries', () => {
  it.each([
    ['src/shared/x.ts', "import { readFileSync as _r } from 'node:fs'"],
    ['src/shared/x.ts', "import { join as _j } from 'path'"],
    ['src/shared/x.ts', "import { app as _a } from 'electron'"],
    ['src/shared/x.ts', 'export const _h = window.location.href'],
    ['src/shared/x.ts', 'export const _p = process.platform'],
    ['src/shared/x.ts', "import { spawnChild as _s } from '../node/process'"],
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
    ['src/renderer/src/x.ts', "import { readFile as _r } from 'node:fs/promises'"]
  ])('refuses in %s: %s', async (file, code) => {
    expect(await restricted(file, code)).not.toEqual([])
  })

  it.each([
    ['src/shared/x.ts', "import { z as _z } from 'zod'"],
    ['src/node/x.ts', "import { redact as _r } from '../shared/redact'"],
    ['src/studio/x.ts', "import { runFfmpeg as _r } from '../node/ffmpeg/run'"],
    ['src/studio/nms-adapter.ts', "import _C from 'node-media-server/src/core/context.js'"],
    ['src/main/core/x.ts', "import { spawnChild as _s } from '../../node/process'"],
    ['src/main/electron/x.ts', "import { app as _a } from 'electron'"],
    ['src/preload/x.ts', "import { contextBridge as _c } from 'electron'"],
    ['src/renderer/src/x.ts', "import { isRunning as _i } from '../../shared/live-state'"]
  ])('allows in %s: %s', async (file, code) => {
    expect(await restricted(file, code)).toEqual([])
  })
})
