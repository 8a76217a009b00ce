// The setup test's edges through the core with its local studio child (the e2e test,
// tests/e2e/setup-test.test.ts, runs the whole test in Chromium on a shaped upload): Cancel during the
// upload ends the push and answers 'cancelled', a second test while one runs is refused, a push that
// cannot start answers why, and in each case the throwaway stream is deleted and no test push is left.
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/main/core/core'
import type { SetupTestProgress } from '../../../src/shared/contract'
import { AppFailure } from '../../../src/shared/result'
import { testFfmpeg } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'
import { ffmpegChildren } from './live-helpers'
import { NO_KEYCHAIN, useSecretService } from './secret-service'

const ss = await useSecretService()
const service = `onair-test-${randomUUID().slice(0, 8)}`

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p
    return 'resolved'
  } catch (e) {
    return e instanceof AppFailure ? e.error.code : String(e)
  }
}

if (!ss.ok && process.env.ONAIR_ALLOW_NO_KEYCHAIN === '1') {
  it.skip(`setup test core tests skipped: ${ss.reason}`, () => {})
} else if (!ss.ok) {
  it('needs a Secret Service', () => {
    throw new Error(NO_KEYCHAIN(ss.reason))
  })
} else {
  describe('the setup test in the core', () => {
    let dir: string
    let core: Core

    beforeAll(async () => {
      testFfmpeg()
      dir = await mkdtemp(join(tmpdir(), 'onair-setup-core-'))
      core = await createCore({
        appDataDir: dir,
        shell: 'web',
        appVersion: '0.0.0-test',
        keychainService: service
      })
      await core.getIngest()
    }, 90_000)
    afterAll(async () => {
      await core?.shutdown()
      ss.stop()
      await rm(dir, { recursive: true, force: true })
    })

    it('Cancel during the upload ends the push, answers cancelled and deletes the stream', async () => {
      const seen: SetupTestProgress[] = []
      const off = core.events.on('setup:progress', (p) => seen.push(p))
      const run = codeOf(core.runSetupTest())
      await waitUntil(
        () => seen.some((p) => p.part === 'upload' && p.kbps !== null),
        'the test stream to flow',
        30_000
      )
      expect(await ffmpegChildren()).toHaveLength(1)
      expect(await codeOf(core.runSetupTest()), 'a second test while one runs').toBe('busy')
      await core.cancelSetupTest()
      expect(await run).toBe('cancelled')
      off()
      expect(seen.some((p) => p.part === 'encoder')).toBe(false)
      // States and numbers only: the guide writes the lines (features/setup/setup-text.ts).
      for (const p of seen) {
        const { testId, part, fraction, ...rest } = p as unknown as Record<string, unknown>
        expect([typeof testId, typeof part, typeof fraction]).toEqual([
          'string',
          'string',
          'number'
        ])
        for (const v of Object.values(rest)) expect(typeof v, JSON.stringify(p)).not.toBe('string')
      }
      expect((await core.listStreams({})).items).toEqual([])
      expect(await ffmpegChildren()).toEqual([])
    }, 60_000)

    it('a push that cannot start names why, and the stream is deleted all the same', async () => {
      const was = process.env.FFMPEG_PATH
      process.env.FFMPEG_PATH = join(dir, 'no-such-ffmpeg')
      try {
        expect(await codeOf(core.runSetupTest())).toBe('ffmpeg-missing')
      } finally {
        if (was === undefined) delete process.env.FFMPEG_PATH
        else process.env.FFMPEG_PATH = was
      }
      expect((await core.listStreams({})).items).toEqual([])
    }, 60_000)
  })
}
