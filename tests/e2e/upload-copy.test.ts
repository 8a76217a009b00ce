// A broadcast the service did not record (#35), as the creator sees it: the session row says the
// service has no recording and offers "Upload the full copy"; the upload runs in the row and ends
// "Published", and the service's asset plays as long as the local copy. Real studio, real tus,
// real Chromium.
import { describe, expect, it } from 'vitest'
import { ffprobe } from '../helpers/studio'
import {
  appForFile,
  createStream,
  eventually,
  liveFor,
  nav,
  pressGoLive,
  savedLocalCopy,
  shot,
  stopLive,
  text
} from './app-page'

const app = appForFile()

describe('Upload the full copy', () => {
  it('says what the service is missing, uploads the local copy and publishes it', async () => {
    const { page, shell } = app()
    await createStream(page, 'Unrecorded show', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-test-pattern').check()
    await pressGoLive(page)
    await liveFor(page, 6)
    await stopLive(page)
    const saved = await savedLocalCopy(shell)

    await nav(page, 'Sessions')
    const row = page.getByTestId('session-row').first()
    const sessionId = (await row.getAttribute('data-session-id')) ?? ''
    const attention = page.getByTestId('upload-attention')
    await attention.waitFor({ timeout: 30_000 })
    expect(await attention.getAttribute('data-session-id')).toBe(sessionId)
    const connection = (await shell.core.connectionStatus()).active?.name ?? ''
    expect(connection).not.toBe('')
    expect(await text(attention.getByTestId('recording-verdict'))).toBe(
      `${connection} has no recording of this broadcast`
    )
    // The row offers it too, its title saying why
    const rowButton = row.getByTestId('row-upload-full-copy')
    // (once the row no longer counts the session live: its last sign of life a few seconds old)
    await rowButton.waitFor({ timeout: 30_000 })
    expect(await rowButton.getAttribute('title')).toContain('has no recording')
    await shot(page, 'session-missing-recording')

    await attention.getByTestId('upload-full-copy').click()
    const line = page.getByTestId('upload-line').first()
    await line.getByTestId('upload-progress').waitFor()
    await shot(page, 'session-upload-progress')
    await eventually(() => text(line.getByTestId('upload-progress')), 60_000).toBe(
      `Published on ${connection}`
    )
    expect(await text(row.getByTestId('upload-row-state'))).toBe('Published')
    await shot(page, 'session-upload-published')

    const [done] = await shell.core.listUploads()
    expect(done?.state).toBe('ready')
    const copy = (await shell.core.listSessions({ limit: 1 })).items[0]!.localRecording!
    expect(copy.file).toBe(saved.file)
    const played = await ffprobe(done!.playbackUrl!)
    expect(Math.abs(played.duration - copy.durationSec!)).toBeLessThan(1)
  })
})
