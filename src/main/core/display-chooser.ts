// getDisplayMedia in Electron: Electron has no chooser of its own, so main lists the screens and windows
// (desktopCapturer), asks the renderer which one (the display:choose event) and waits for its answer
// (chooseDisplaySource). Plain Node: window.ts only hands in what Electron gave and passes the answer on.
import { randomUUID } from 'node:crypto'
import type { DisplayChooseEvent, DisplaySourceView } from '../../shared/contract'
import { AppFailure } from '../../shared/result'

/** How long a question stays open: then it is answered "cancelled", as the creator walked away. */
export const CHOOSE_TIMEOUT_MS = 2 * 60_000

export interface DisplayChooserOptions {
  emit: (event: DisplayChooseEvent) => void
  timeoutMs?: number
  now?: () => number
}

interface Pending {
  requestId: string
  ids: Set<string>
  resolve: (sourceId: string | null) => void
  timer: ReturnType<typeof setTimeout>
}

/** One question at a time: a new one cancels the one still open (a second getDisplayMedia wins). */
export class DisplayChooser {
  private pending: Pending | null = null
  private readonly timeoutMs: number
  private readonly now: () => number

  constructor(private readonly opts: DisplayChooserOptions) {
    this.timeoutMs = opts.timeoutMs ?? CHOOSE_TIMEOUT_MS
    this.now = opts.now ?? Date.now
  }

  /** Resolves with the chosen source's id, or null when cancelled (by the creator, time, or a newer ask). */
  choose(sources: readonly DisplaySourceView[]): Promise<string | null> {
    this.settle(null)
    const requestId = randomUUID()
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(null, requestId), this.timeoutMs)
      timer.unref?.() // an open question never keeps the process alive on its own
      this.pending = { requestId, ids: new Set(sources.map((s) => s.id)), resolve, timer }
      this.opts.emit({ requestId, sources: [...sources], expiresAt: this.now() + this.timeoutMs })
    })
  }

  /** The renderer's answer. Throws AppFailure for a question that is not open or a source not offered. */
  answer(requestId: string, sourceId: string | null): void {
    if (this.pending?.requestId !== requestId)
      throw new AppFailure({
        code: 'not-found',
        message: 'This screen choice is no longer open: it was answered, cancelled or timed out.',
        hint: 'Choose the screen again.'
      })
    if (sourceId !== null && !this.pending.ids.has(sourceId))
      throw new AppFailure({
        code: 'bad-request',
        message: 'That screen or window was not one of those offered.',
        field: 'sourceId'
      })
    this.settle(sourceId)
  }

  /** The window closed or its page went away: nobody is left to answer. */
  cancel(): void {
    this.settle(null)
  }

  private settle(sourceId: string | null, onlyRequestId?: string): void {
    const p = this.pending
    if (!p || (onlyRequestId !== undefined && p.requestId !== onlyRequestId)) return
    this.pending = null
    clearTimeout(p.timer)
    p.resolve(sourceId)
  }
}

/** desktopCapturer's ids are `screen:<n>:0` and `window:<native id>:<n>`; anything else is not offered. */
export function sourceKind(id: string): DisplaySourceView['kind'] | null {
  if (id.startsWith('screen:')) return 'screen'
  if (id.startsWith('window:')) return 'window'
  return null
}

/**
 * Is this source Onair's own window? Compared on `window:<native id>` only: the last part identifies
 * contents inside the window and need not match between getMediaSourceId() and desktopCapturer.
 */
export function isOwnWindow(sourceId: string, ownMediaSourceId: string | undefined): boolean {
  if (!ownMediaSourceId) return false
  const head = (id: string): string => id.split(':').slice(0, 2).join(':')
  return sourceKind(sourceId) === 'window' && head(sourceId) === head(ownMediaSourceId)
}

/** What the chooser needs of Electron's NativeImage. */
export interface ImageLike {
  isEmpty(): boolean
  toDataURL(): string
}

/** What the chooser needs of Electron's DesktopCapturerSource. */
export interface CapturedSource {
  id: string
  name: string
  display_id: string
  thumbnail: ImageLike | null
  appIcon: ImageLike | null
}

/** desktopCapturer's list as the renderer sees it: screens and windows, Onair's own window left out. */
export function toSourceViews(
  sources: readonly CapturedSource[],
  ownMediaSourceId?: string
): DisplaySourceView[] {
  const views: DisplaySourceView[] = []
  for (const s of sources) {
    const kind = sourceKind(s.id)
    if (!kind || isOwnWindow(s.id, ownMediaSourceId)) continue
    const image = (i: ImageLike | null): string | undefined =>
      i && !i.isEmpty() ? i.toDataURL() : undefined
    const appIcon = kind === 'window' ? image(s.appIcon) : undefined
    views.push({
      id: s.id,
      name: s.name,
      kind,
      thumbnail: image(s.thumbnail) ?? '',
      ...(appIcon ? { appIcon } : {}),
      ...(s.display_id ? { displayId: s.display_id } : {})
    })
  }
  return views
}

/** What Electron's display-media callback is given for a chosen source. */
export interface DisplayStreams {
  video: { id: string; name: string }
  audio?: 'loopback'
}

/**
 * The chosen source, plus system audio where Electron can capture it: loopback exists on Windows only.
 * macOS and Linux get no system audio from getDisplayMedia here (the creator's microphone still works).
 */
export function displayStreams(
  source: { id: string; name: string },
  platform: NodeJS.Platform
): DisplayStreams {
  const video = { id: source.id, name: source.name }
  return platform === 'win32' ? { video, audio: 'loopback' } : { video }
}

export interface DisplayMediaDeps {
  chooser: DisplayChooser
  /** desktopCapturer.getSources, with screens and windows and their thumbnails. */
  getSources: () => Promise<readonly CapturedSource[]>
  /** The main window's getMediaSourceId(), so it is not offered to itself. */
  ownMediaSourceId?: string
  platform: NodeJS.Platform
}

/** One getDisplayMedia request: list, ask, and answer with the streams to grant, or null to cancel. */
export async function answerDisplayMedia(deps: DisplayMediaDeps): Promise<DisplayStreams | null> {
  const views = toSourceViews(await deps.getSources(), deps.ownMediaSourceId)
  const chosen = await deps.chooser.choose(views)
  const source = views.find((v) => v.id === chosen)
  return source ? displayStreams(source, deps.platform) : null
}
