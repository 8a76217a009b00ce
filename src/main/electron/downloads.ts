// Saving a recording: downloadRecording asks Electron to download the file (never a navigation of the
// window), and the session's will-download event gives its save dialog the name the core chose. The
// listener lives as long as the window: it is attached to the window's session when the window opens
// and removed when it closes, so a window opened again (macOS) does not stack a second one.
// Written against the few members it uses, so tests drive it with a plain EventEmitter for the session
// (Electron's runtime cannot run there).
import { join } from 'node:path'
import type { SaveDialogOptions } from 'electron'

/** What will-download hands over (Electron's DownloadItem). */
export interface DownloadItemLike {
  getURL(): string
  setSaveDialogOptions(options: SaveDialogOptions): void
}

type WillDownload = (event: unknown, item: DownloadItemLike) => void

/** The window, as far as downloads go (Electron's BrowserWindow). */
export interface DownloadWindowLike {
  webContents: {
    session: {
      on(event: 'will-download', listener: WillDownload): unknown
      removeListener(event: 'will-download', listener: WillDownload): unknown
    }
  }
  once(event: 'closed', listener: () => void): unknown
}

export interface RecordingDownloads {
  /** The download of url, when it starts, offers filename in its save dialog. */
  expect(url: string, filename: string): void
  /** Names the downloads of win's session until win is closed. */
  attach(win: DownloadWindowLike): void
}

export function recordingDownloads(downloadsDir: () => string): RecordingDownloads {
  const names = new Map<string, string>()
  const onWillDownload: WillDownload = (_event, item) => {
    const name = names.get(item.getURL())
    if (name === undefined) return
    names.delete(item.getURL())
    item.setSaveDialogOptions({
      title: 'Save recording',
      defaultPath: join(downloadsDir(), name),
      filters: [{ name: 'MP4 video', extensions: ['mp4'] }]
    })
  }
  return {
    expect: (url, filename) => void names.set(url, filename),
    attach(win) {
      // Taken now: a closed window's webContents can no longer be read.
      const session = win.webContents.session
      session.on('will-download', onWillDownload)
      win.once('closed', () => session.removeListener('will-download', onWillDownload))
    }
  }
}
