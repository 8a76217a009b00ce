// Saving a recording: downloadRecording asks Electron to download the file (never a navigation of the
// window), and the session's will-download event gives its save dialog the name the core chose. The
// listener lives as long as the window: it is attached to the window's session when the window opens
// and removed when it closes, so a window opened again (macOS) does not stack a second one.
// A rendition (a playlist, not a file) has no download to name: its save dialog is asked first, and
// the core remuxes the rendition into the file chosen.
// Written against the few members it uses, so tests drive it with a plain EventEmitter for the session
// and a function for the dialog (Electron's runtime cannot run there).
import { join } from 'node:path'
import type { SaveDialogOptions } from 'electron'
import type { RecordingDownload } from '../../shared/contract'

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

/** Electron's dialog.showSaveDialog, as far as it is used. */
export type ShowSaveDialog = (
  options: SaveDialogOptions
) => Promise<{ canceled: boolean; filePath?: string }>

export interface RecordingDownloads {
  /** The download of url, when it starts, offers filename in its save dialog. */
  expect(url: string, filename: string): void
  /**
   * A rendition: asks where to save it (the same dialog), then `save`s it there. Resolves the file
   * chosen, or null when the dialog was cancelled.
   */
  saveRendition(
    download: RecordingDownload,
    save: (file: string) => Promise<void>
  ): Promise<string | null>
  /** Names the downloads of win's session until win is closed. */
  attach(win: DownloadWindowLike): void
}

export function recordingDownloads(
  downloadsDir: () => string,
  showSaveDialog?: ShowSaveDialog
): RecordingDownloads {
  const names = new Map<string, string>()
  const dialogOptions = (name: string): SaveDialogOptions => ({
    title: 'Save recording',
    defaultPath: join(downloadsDir(), name),
    filters: [{ name: 'MP4 video', extensions: ['mp4'] }]
  })
  const onWillDownload: WillDownload = (_event, item) => {
    const name = names.get(item.getURL())
    if (name === undefined) return
    names.delete(item.getURL())
    item.setSaveDialogOptions(dialogOptions(name))
  }
  return {
    expect: (url, filename) => void names.set(url, filename),
    async saveRendition(download, save) {
      if (!showSaveDialog) throw new Error('No save dialog in this shell.')
      const choice = await showSaveDialog(dialogOptions(download.filename))
      if (choice.canceled || !choice.filePath) return null
      await save(choice.filePath)
      return choice.filePath
    },
    attach(win) {
      // Taken now: a closed window's webContents can no longer be read.
      const session = win.webContents.session
      session.on('will-download', onWillDownload)
      win.once('closed', () => session.removeListener('will-download', onWillDownload))
    }
  }
}
