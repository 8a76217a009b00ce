// The save-dialog naming of recording downloads, and its will-download listener's lifetime. Electron's
// runtime cannot run here: the session is a plain EventEmitter (Electron's Session is one) and the
// window an EventEmitter with that session on its webContents; that is injected, the logic is the app's.
import { EventEmitter } from 'node:events'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { recordingDownloads, type DownloadItemLike } from '../../../src/main/electron/downloads'

const DOWNLOADS = join('/home', 'creator', 'Downloads')

function fakeWindow(
  session: EventEmitter
): EventEmitter & { webContents: { session: EventEmitter } } {
  return Object.assign(new EventEmitter(), { webContents: { session } })
}

function fakeItem(url: string): DownloadItemLike & { options: unknown[] } {
  const options: unknown[] = []
  return { options, getURL: () => url, setSaveDialogOptions: (o) => void options.push(o) }
}

describe('recording downloads', () => {
  it('offers the name the core chose, once, and leaves other downloads alone', () => {
    const session = new EventEmitter()
    const downloads = recordingDownloads(() => DOWNLOADS)
    downloads.attach(fakeWindow(session))
    downloads.expect('http://127.0.0.1:8935/rec/a.mp4', 'My stream 2026-11-24.mp4')

    const item = fakeItem('http://127.0.0.1:8935/rec/a.mp4')
    session.emit('will-download', {}, item)
    expect(item.options).toEqual([
      {
        title: 'Save recording',
        defaultPath: join(DOWNLOADS, 'My stream 2026-11-24.mp4'),
        filters: [{ name: 'MP4 video', extensions: ['mp4'] }]
      }
    ])

    const again = fakeItem('http://127.0.0.1:8935/rec/a.mp4')
    const other = fakeItem('https://example.com/other.zip')
    session.emit('will-download', {}, again)
    session.emit('will-download', {}, other)
    expect(again.options).toEqual([])
    expect(other.options).toEqual([])
  })

  it('removes its will-download listener when the window closes, and a reopened window gets one', () => {
    const session = new EventEmitter()
    const downloads = recordingDownloads(() => DOWNLOADS)
    const first = fakeWindow(session)
    downloads.attach(first)
    expect(session.listenerCount('will-download')).toBe(1)

    first.emit('closed')
    expect(session.listenerCount('will-download')).toBe(0)
    downloads.expect('http://x/rec/b.mp4', 'b.mp4')
    const unnamed = fakeItem('http://x/rec/b.mp4')
    session.emit('will-download', {}, unnamed)
    expect(unnamed.options).toEqual([])

    // macOS: the app stays, a new window opens on the same session; closing it again leaves none.
    const second = fakeWindow(session)
    downloads.attach(second)
    expect(session.listenerCount('will-download')).toBe(1)
    const named = fakeItem('http://x/rec/b.mp4')
    session.emit('will-download', {}, named)
    expect(named.options).toHaveLength(1)
    second.emit('closed')
    expect(session.listenerCount('will-download')).toBe(0)
  })

  it('a rendition asks where to save it (the same dialog), then has it saved there; a cancel saves nothing', async () => {
    const asked: unknown[] = []
    let answer: { canceled: boolean; filePath?: string } = {
      canceled: false,
      filePath: '/home/creator/Videos/show 720p.mp4'
    }
    const downloads = recordingDownloads(
      () => DOWNLOADS,
      async (o) => {
        asked.push(o)
        return answer
      }
    )
    const saved: string[] = []
    const rendition = {
      url: 'http://127.0.0.1:8935/recordings/a/v1.m3u8',
      filename: 'My stream 2026-11-24 12.00 720p.mp4',
      format: 'hls' as const
    }
    const where = await downloads.saveRendition(rendition, async (file) => void saved.push(file))
    expect(where).toBe('/home/creator/Videos/show 720p.mp4')
    expect(saved).toEqual(['/home/creator/Videos/show 720p.mp4'])
    expect(asked).toEqual([
      {
        title: 'Save recording',
        defaultPath: join(DOWNLOADS, 'My stream 2026-11-24 12.00 720p.mp4'),
        filters: [{ name: 'MP4 video', extensions: ['mp4'] }]
      }
    ])
    answer = { canceled: true }
    expect(await downloads.saveRendition(rendition, async (file) => void saved.push(file))).toBe(
      null
    )
    expect(saved).toHaveLength(1)
    // A failed save is the caller's to report.
    answer = { canceled: false, filePath: '/x.mp4' }
    await expect(
      downloads.saveRendition(rendition, () => Promise.reject(new Error('remux failed')))
    ).rejects.toThrow('remux failed')
  })
})
