// Browser sources (#34 §4, OBS's browser source: alerts, chat, overlays): a web page the scene draws.
// Main renders each page offscreen (Electron: an offscreen window of its own, main/electron) and keeps
// its newest painted frame; the page on air reads frames with readBrowserFrame and draws them as it
// draws a camera. The web shell cannot render a page for another page to draw: its state says so.
// Types, and values: the frame header's size and flag (both sides read them).

/** What main is asked to show for a browser source (its address, page size in CSS pixels, rate). */
export interface BrowserPage {
  url: string
  width: number
  height: number
  /** Frames a second, 1..30 (shared/scenes.ts BROWSER_MAX_FPS). */
  fps: number
}

/**
 * How a browser source's page stands, as main sends it ('browser:state') and answers it
 * (openBrowserSource). The renderer words it (features/scenes/browser-text.ts).
 */
export type BrowserSourceState =
  /** Opening or navigating: no frame yet for this address. */
  | { kind: 'loading' }
  /** Painted at least once: readBrowserFrame has a picture. */
  | { kind: 'showing' }
  /** The address did not load: the browser engine's own error (e.g. ERR_NAME_NOT_RESOLVED) and code. */
  | { kind: 'load-failed'; code: number; detail: string }
  /** The page's process crashed or was killed (Electron's render-process-gone reason); it can be reloaded. */
  | { kind: 'crashed'; reason: string }
  /** This shell cannot render a page offscreen (the web shell): the desktop app can. */
  | { kind: 'needs-desktop' }
  /** Closed (closeBrowserSource, or main shut down). */
  | { kind: 'closed' }

export interface BrowserStateEvent {
  sourceId: string
  state: BrowserSourceState
}

/**
 * readBrowserFrame's answer is bytes: a 16-byte header of four little-endian uint32 (serial, width,
 * height, flags), then width x height x 4 bytes of pixels, B G R A per pixel, rows top to bottom, no
 * padding (what Electron's NativeImage.toBitmap gives). serial counts the page's paints from 1; a
 * header with no pixels (width and height 0) means no frame newer than the one asked after came in
 * time. flags bit 0: the colours are premultiplied by alpha (Chromium paints so).
 */
export const BROWSER_FRAME_HEADER_BYTES = 16
export const BROWSER_FRAME_PREMULTIPLIED = 1
