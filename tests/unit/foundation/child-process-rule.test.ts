// Every child process starts through src/node/process.ts (windowsHide, tracked for the whole-tree kill
// on exit): a lint rule refuses the child_process import anywhere else under src. Each case lints one
// planted line as if it stood in that file, with the project's own config.
import { resolve } from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const eslint = new ESLint({ cwd: resolve(__dirname, '../../..') })
const RULE = '@typescript-eslint/no-restricted-imports'

async function refusals(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(`${code}\nexport const _planted = 1\n`, { filePath: file })
  return (r?.messages ?? []).filter((m) => m.ruleId === RULE).map((m) => m.message)
}

describe('child processes start through src/node/process.ts only', { timeout: 60_000 }, () => {
  it.each([
    ['src/studio/x.ts', "import { execFile as _e } from 'node:child_process'"],
    ['src/studio/recordings.ts', "import { spawn as _s } from 'child_process'"],
    ['src/node/ffmpeg/locate.ts', "import { execFile as _e } from 'node:child_process'"],
    ['src/node/x.ts', "import type { ChildProcess as _C } from 'node:child_process'"],
    ['src/main/core/studio-host.ts', "import * as _cp from 'node:child_process'"],
    ['src/main/electron/x.ts', "export { fork } from 'node:child_process'"],
    ['src/renderer/src/x.tsx', "import { spawn as _s } from 'node:child_process'"]
  ])('refuses in %s: %s', async (file, code) => {
    const messages = await refusals(file, code)
    expect(messages).toHaveLength(1)
    expect(messages[0]).toContain('src/node/process.ts')
  })

  it('allows it in src/node/process.ts, and process.ts as the way in elsewhere', async () => {
    expect(
      await refusals('src/node/process.ts', "import { spawn as _s } from 'node:child_process'")
    ).toEqual([])
    expect(
      await refusals('src/studio/x.ts', "import { runChild as _r } from '../node/process'")
    ).toEqual([])
  })
})
