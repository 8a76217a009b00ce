// Types only: the screen and window chooser behind Electron's getDisplayMedia.

/** One screen or window offered by Electron's desktopCapturer (src/main/core/display-chooser.ts). */
export interface DisplaySourceView {
  /** desktopCapturer's id, `screen:…` or `window:…`: what chooseDisplaySource answers with. */
  id: string
  name: string
  kind: 'screen' | 'window'
  /** A PNG data URL of about 320×180; empty when the OS gave no picture. */
  thumbnail: string
  /** The owning app's icon as a PNG data URL (windows, when the OS has one). */
  appIcon?: string
  /** Electron's display id of a screen, when known. */
  displayId?: string
}

export interface DisplayChooseEvent {
  requestId: string
  sources: DisplaySourceView[]
  /** ms since epoch: main answers "cancelled" by itself then, so the dialog closes too. */
  expiresAt: number
}
