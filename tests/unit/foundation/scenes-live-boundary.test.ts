// features/live holds the scene program through ProgramHost; features/scenes never imports
// features/live (eslint.config.mjs, the "room: scenes" rule). Each case lints one planted line as if
// it stood in that folder, with the project's own config, and sees the rule fail or pass.
import { resolve } from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const root = resolve(__dirname, '../../..')
const eslint = new ESLint({ cwd: root })
/** The rule that says it: this room's own, or the layers table's row for features/scenes. */
const RULES = ['scenes/no-live-import', 'layers/imports']

async function refused(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(`${code}\nexport const _planted = 1\n`, { filePath: file })
  return (r?.messages ?? [])
    .filter((m) => RULES.includes(m.ruleId ?? '') && m.message.includes('features/live'))
    .map((m) => m.message)
}

describe('features/scenes does not import features/live', { timeout: 60_000 }, () => {
  it.each([
    [
      'src/renderer/src/features/scenes/x.ts',
      "import { useLive as _u } from '../live/live-context'"
    ],
    [
      'src/renderer/src/features/scenes/x.tsx',
      "import type { Capture as _C } from '../live/live-context'"
    ],
    [
      'src/renderer/src/features/scenes/deep/x.ts',
      "export { GoLiveScreen } from '../../live/GoLiveScreen'"
    ],
    ['src/renderer/src/features/scenes/x.ts', "export * from '../live/engine/pusher'"],
    [
      'src/renderer/src/features/scenes/x.ts',
      "export const _l = () => import('../live/LiveBanner')"
    ],
    ['src/renderer/src/features/scenes/x.ts', "import '../../features/live/AudioMeter'"]
  ])('refuses in %s: %s', async (file, code) => {
    expect(await refused(file, code)).toEqual([expect.stringContaining('ProgramHost')])
  })

  it.each([
    [
      'src/renderer/src/features/live/x.ts',
      "import { SceneProgram as _P } from '../scenes/program'"
    ],
    [
      'src/renderer/src/features/scenes/x.ts',
      "import { openScreen as _o } from '../../lib/capture'"
    ],
    ['src/renderer/src/features/scenes/x.ts', "import { Changes as _C } from './changes'"],
    [
      'src/renderer/src/features/scenes/x.tsx',
      "import { ErrorNote as _E } from '../../components/ErrorNote'"
    ]
  ])('allows in %s: %s', async (file, code) => {
    expect(await refused(file, code)).toEqual([])
  })

  it('holds for the real files: none of features/scenes imports features/live', async () => {
    const results = await eslint.lintFiles(['src/renderer/src/features/scenes'])
    expect(results.length).toBeGreaterThan(5)
    const hits = results.flatMap((r) =>
      r.messages
        .filter((m) => RULES.includes(m.ruleId ?? ''))
        .map((m) => `${r.filePath}: ${m.message}`)
    )
    expect(hits).toEqual([])
  })
})
