// A BrowserPageFactory in plain Node for the tests (Electron's offscreen windows cannot run here): each
// page paints a known picture with a real timer at its page's rate, as an offscreen page would.
// The picture: one solid colour, from the address's `#rrggbb` fragment or `?color=rrggbb` (grey
// otherwise), opaque, or of alpha aa with `#rrggbbaa` (premultiplied, as Chromium paints); the first pixel carries the page's paint counter in its B, G and R bytes (low byte
// first), so a reader can tell frames apart. Addresses that misbehave on purpose:
// - host `fail.invalid`: the load fails as Chromium's does for an unknown host (-105, ERR_NAME_NOT_RESOLVED),
//   then its error page paints once;
// - host `crash.invalid`: paints once, then the page's process is gone ('crashed').
// page.crash() crashes any page from the test.
import type { BrowserPage } from '../../src/shared/contract'
import type {
  BrowserPageCallbacks,
  BrowserPageFactory,
  BrowserPageHandle
} from '../../src/main/core/browser-sources'

export interface PaintedPage {
  url: string
  width: number
  height: number
  fps: number
  /** Paints so far (of every address this page showed). */
  paints: number
  closed: boolean
  /** The page's process goes away now ('crashed'). */
  crash(reason?: string): void
}

export interface BrowserPainter extends BrowserPageFactory {
  /** Every page opened, in order (closed ones too). */
  pages: PaintedPage[]
  /** The pages still open. */
  openPages(): PaintedPage[]
}

/** The colour an address asks for, as straight [r, g, b, a] (grey when none; opaque unless given). */
export function rgbaOf(url: string): [number, number, number, number] {
  let hex = ''
  try {
    const u = new URL(url)
    hex = u.hash.replace(/^#/, '') || u.searchParams.get('color') || ''
  } catch {
    // Not an address: grey.
  }
  const m = /^([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})?$/i.exec(hex.replace(/^#/, ''))
  if (!m) return [128, 128, 128, 255]
  const [r, g, b] = m.slice(1, 4).map((h) => parseInt(h, 16)) as [number, number, number]
  return [r, g, b, m[4] ? parseInt(m[4], 16) : 255]
}

/** The paint counter a painted frame's first pixel carries (B, G, R: low byte first). */
export const counterOf = (bgra: Uint8Array): number =>
  (bgra[0] ?? 0) | ((bgra[1] ?? 0) << 8) | ((bgra[2] ?? 0) << 16)

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname
  } catch {
    return ''
  }
}

export function painter(): BrowserPainter {
  const pages: PaintedPage[] = []

  const open = (page: BrowserPage, cb: BrowserPageCallbacks): BrowserPageHandle => {
    let timer: ReturnType<typeof setInterval> | undefined
    let soon: ReturnType<typeof setTimeout> | undefined
    /** The address being shown; a navigation makes a new one so late ticks of the old do nothing. */
    let showing = 0
    const p: PaintedPage = {
      url: page.url,
      width: page.width,
      height: page.height,
      fps: page.fps,
      paints: 0,
      closed: false,
      crash: (reason = 'crashed') => {
        stop()
        if (!p.closed) cb.crashed(reason)
      }
    }
    pages.push(p)

    const stop = (): void => {
      clearInterval(timer)
      clearTimeout(soon)
      timer = soon = undefined
    }
    const paint = (): void => {
      const [r, g, b, a] = rgbaOf(p.url)
      // Premultiplied by alpha, as Chromium paints (and as the flag below says).
      const pre = (c: number): number => Math.round((c * a) / 255)
      const bytes = new Uint8Array(p.width * p.height * 4)
      for (let i = 0; i < bytes.length; i += 4) {
        bytes[i] = pre(b)
        bytes[i + 1] = pre(g)
        bytes[i + 2] = pre(r)
        bytes[i + 3] = a
      }
      const n = ++p.paints
      bytes[0] = n & 0xff
      bytes[1] = (n >> 8) & 0xff
      bytes[2] = (n >> 16) & 0xff
      cb.paint(bytes, p.width, p.height, true)
    }
    const run = (): void => {
      stop()
      const load = ++showing
      const host = hostOf(p.url)
      // As a page does: the load ends a moment after it starts, never within the caller's turn.
      soon = setTimeout(() => {
        if (load !== showing || p.closed) return
        if (host === 'fail.invalid') {
          cb.loadFailed(-105, 'ERR_NAME_NOT_RESOLVED')
          // Chromium then shows its own error page ("This site can't be reached"), and paints it.
          return paint()
        }
        cb.loaded()
        paint()
        if (host === 'crash.invalid') return p.crash()
        timer = setInterval(paint, 1000 / p.fps)
      }, 5)
    }
    run()
    return {
      navigate: (url) => {
        p.url = url
        run()
      },
      resize: (width, height) => {
        p.width = width
        p.height = height
      },
      setFrameRate: (fps) => {
        p.fps = fps
        if (timer) {
          clearInterval(timer)
          timer = setInterval(paint, 1000 / fps)
        }
      },
      close: () => {
        p.closed = true
        stop()
      }
    }
  }

  return { open, pages, openPages: () => pages.filter((p) => !p.closed) }
}
