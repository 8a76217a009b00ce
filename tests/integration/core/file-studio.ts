// A broadcaster test file's studio, registered in its hooks (vitest's: test files only; live-helpers.ts,
// which the stand-in app (tests/fixtures/app/live-app.ts) imports outside vitest, stays free of them).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { startTestStudio, type TestStudio } from '../../helpers/studio'
import { ffmpegChildren } from './live-helpers'

/** What studioForFile gives a test file once its beforeAll has run. */
export interface FileStudio {
  readonly studio: TestStudio
  readonly client: ApiClient
  /** A scratch folder of this file's, removed after it. */
  readonly dir: string
}

/**
 * A broadcaster test file's setup, registered in its hooks: one test studio (with this window for a
 * dropped publisher to come back into the same session), an API client for it and a scratch folder;
 * after each test no broadcaster ffmpeg is left (ffmpegChildren); after the file, all is removed.
 */
export function studioForFile(opts: { resumeWindowMs: number }): FileStudio {
  let made: { studio: TestStudio; client: ApiClient; dir: string } | undefined
  beforeAll(async () => {
    const studio = await startTestStudio({ resumeWindowMs: opts.resumeWindowMs })
    const client = new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey })
    made = { studio, client, dir: await mkdtemp(join(tmpdir(), 'onair-live-')) }
  })
  afterAll(async () => {
    await made?.studio.cleanup()
    if (made) await rm(made.dir, { recursive: true, force: true })
  })
  afterEach(async () => {
    expect(await ffmpegChildren()).toEqual([])
  })
  const got = (): NonNullable<typeof made> => {
    if (!made) throw new Error('studioForFile: used before its beforeAll ran')
    return made
  }
  return {
    get studio() {
      return got().studio
    },
    get client() {
      return got().client
    },
    get dir() {
      return got().dir
    }
  }
}
