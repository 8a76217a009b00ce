// hls.js is big and only needed while a player is open (Play on a recording, Watch on a live stream), so
// it is imported on demand: its own chunk, outside what the window loads first. Fatal errors are
// surfaced for the Retry button instead of a frozen frame.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react'
import type { AppError } from '../../../../shared/result'
import { MEDIA_START_ATTR, MEDIA_START_DATERANGE, mediaBehind } from '../../../../shared/live-state'
import type { TimedFragment } from '../../../../shared/markers'
import { playWithSound, type Autoplay } from './autoplay'

export interface Rendition {
  index: number
  width: number
  height: number
  bitrate: number
  name?: string
  /** Its playlist (absolute): how a download names the rendition. */
  url: string
}

export interface HlsState {
  /**
   * Live only: seconds between the frame on screen being sent and now. Given the broadcaster's
   * pushed media clock (LiveHealthEvent.mediaEpoch), from the frame's media time (see mediaBehind);
   * otherwise from EXT-X-PROGRAM-DATE-TIME.
   */
  behindLive: (mediaEpoch?: number) => number | null
  renditions: Rendition[]
  /**
   * A recording's fragments with their wall-clock times (EXT-X-PROGRAM-DATE-TIME), from the first
   * rendition playlist loaded: where markers go on the timeline, and what marks in and out mean.
   */
  fragments: TimedFragment[]
  /** -1 = automatic selection. */
  selected: number
  playing: Rendition | null
  /** How playback started: 'muted' when the browser refused sound (the player offers it on a click). */
  autoplay: Autoplay | null
  error: AppError | null
  loading: boolean
  select: (index: number) => void
  retry: () => void
}

type HlsInstance = import('hls.js').default

/** hls.js names its errors for developers (manifestLoadError...); say what part failed instead. */
function describeHlsError(details: string, live: boolean): string {
  if (details.startsWith('manifest'))
    return live
      ? "the live stream's playlist could not be loaded"
      : "the recording's playlist could not be loaded"
  if (details.startsWith('level')) return "a rendition's playlist could not be loaded"
  if (details.startsWith('frag') || details.startsWith('key'))
    return 'a video segment could not be loaded'
  if (details.startsWith('buffer')) return 'the video could not be decoded'
  return details
}

/**
 * How many times a live monitor loads a just-started broadcast's playlist again after a 404 (one
 * second apart) while its first segment is still being made. hls.js itself never retries a 4xx.
 */
const LIVE_NOT_YET_TRIES = 30

/**
 * Live: aim at one second behind the newest segment. A few seconds behind, play faster (at most 1.5×)
 * until back at one second; more than five seconds behind, jump forward to one second. A playlist
 * load that fails with a server error (5xx) is retried up to 20 times, one that times out 4 times.
 */
const LIVE_CONFIG = {
  lowLatencyMode: true,
  liveSyncDuration: 1,
  liveMaxLatencyDuration: 5,
  maxLiveSyncPlaybackRate: 1.5,
  backBufferLength: 10,
  manifestLoadPolicy: {
    default: {
      maxTimeToFirstByteMs: 10_000,
      maxLoadTimeMs: 20_000,
      timeoutRetry: { maxNumRetry: 4, retryDelayMs: 500, maxRetryDelayMs: 2000 },
      errorRetry: { maxNumRetry: 20, retryDelayMs: 500, maxRetryDelayMs: 2000 }
    }
  }
} as const

export function useHls(
  video: RefObject<HTMLVideoElement | null>,
  url: string,
  opts: { live?: boolean } = {}
): HlsState {
  const live = opts.live ?? false
  const [renditions, setRenditions] = useState<Rendition[]>([])
  const [fragments, setFragments] = useState<TimedFragment[]>([])
  const [selected, setSelected] = useState(-1)
  const [playingIndex, setPlayingIndex] = useState<number | null>(null)
  const [error, setError] = useState<AppError | null>(null)
  const [autoplay, setAutoplay] = useState<Autoplay | null>(null)
  const [loading, setLoading] = useState(true)
  const [hls, setHls] = useState<HlsInstance | null>(null)
  const [attempt, setAttempt] = useState(0)
  const notYet = useRef(0)

  useEffect(() => {
    const el = video.current
    // No URL: nothing to play by HLS (the live monitor is trying WebRTC first).
    if (!el || !url) return
    let disposed = false
    let instance: HlsInstance | null = null
    let retryTimer: ReturnType<typeof setTimeout> | undefined
    setLoading(true)
    setError(null)
    setRenditions([])
    setFragments([])
    setPlayingIndex(null)
    setSelected(-1)
    void import('hls.js')
      .then(({ default: Hls }) => {
        if (disposed) return
        if (!Hls.isSupported()) {
          if (el.canPlayType('application/vnd.apple.mpegurl')) {
            el.src = url
            setLoading(false)
            return
          }
          setLoading(false)
          setError({ code: 'internal', message: 'This system cannot play HLS video.' })
          return
        }
        instance = new Hls({ enableWorker: true, ...(live ? LIVE_CONFIG : {}) })
        setHls(instance)
        instance.on(Hls.Events.MANIFEST_PARSED, (_e, data) => {
          notYet.current = 0
          setRenditions(
            data.levels.map((l, index) => ({
              index,
              width: l.width,
              height: l.height,
              bitrate: l.bitrate,
              name: l.name,
              url: l.uri
            }))
          )
          setLoading(false)
          void playWithSound(el).then((how) => !disposed && setAutoplay(how))
        })
        instance.on(Hls.Events.LEVEL_SWITCHED, (_e, data) => setPlayingIndex(data.level))
        // Every rendition of a recording has the same times: the first one loaded is enough.
        if (!live)
          instance.on(Hls.Events.LEVEL_LOADED, (_e, data) =>
            setFragments((had) =>
              had.length > 0
                ? had
                : data.details.fragments.map((f) => ({
                    start: f.start,
                    duration: f.duration,
                    programDateTime: f.programDateTime ?? null
                  }))
            )
          )
        instance.on(Hls.Events.ERROR, (_e, data) => {
          if (!data.fatal) return
          // A broadcast that has just started has no playlist for a few seconds (the first segment
          // is still being made): for live, a 404 there means "not yet", so wait and load again.
          if (
            live &&
            data.details.startsWith('manifest') &&
            data.response?.code === 404 &&
            notYet.current < LIVE_NOT_YET_TRIES
          ) {
            notYet.current++
            instance?.destroy()
            retryTimer = setTimeout(() => setAttempt((a) => a + 1), 1000)
            return
          }
          setLoading(false)
          const status = data.response?.code ? ` (HTTP ${data.response.code})` : ''
          setError({
            code: data.type === Hls.ErrorTypes.NETWORK_ERROR ? 'network' : 'internal',
            message: `Playback failed: ${describeHlsError(data.details, live)}${status}.`,
            hint:
              data.type === Hls.ErrorTypes.NETWORK_ERROR
                ? live
                  ? 'The live stream could not be fetched: is the broadcast still on? Retry.'
                  : 'The recording could not be fetched. Check the connection and retry.'
                : live
                  ? 'The live stream could not be decoded. Retry.'
                  : 'The recording could not be decoded. Retry, or download the MP4.'
          })
          instance?.destroy()
        })
        instance.loadSource(url)
        instance.attachMedia(el)
      })
      .catch((e: unknown) => {
        if (disposed) return
        setLoading(false)
        setError({ code: 'internal', message: `The player could not load: ${String(e)}` })
      })
    return () => {
      disposed = true
      clearTimeout(retryTimer)
      instance?.destroy()
      setHls(null)
    }
  }, [video, url, attempt, live])

  const select = useCallback(
    (index: number) => {
      setSelected(index)
      // currentLevel switches now (flushing the buffer); -1 hands the choice back to the ABR logic.
      if (hls) hls.currentLevel = index
    },
    [hls]
  )

  const behindLive = useCallback(
    (mediaEpoch?: number): number | null => {
      const at = hls?.playingDate?.getTime()
      if (!at) return null
      const details = hls && hls.currentLevel >= 0 ? hls.levels[hls.currentLevel]?.details : null
      const first = details?.fragments[0]
      const firstPdt =
        details?.type === 'EVENT' && first?.sn === 0 ? (first.programDateTime ?? null) : null
      // Where the playlist begins in the broadcaster's media, when the studio says (the local one does).
      const start = Number(details?.dateRanges[MEDIA_START_DATERANGE]?.attr[MEDIA_START_ATTR])
      const firstMediaMs = Number.isFinite(start) ? start : undefined
      return mediaBehind({ now: Date.now(), playingPdt: at, firstPdt, mediaEpoch, firstMediaMs })
    },
    [hls]
  )

  return {
    behindLive,
    renditions,
    fragments,
    selected,
    playing: playingIndex === null ? null : (renditions[playingIndex] ?? null),
    autoplay,
    error,
    loading,
    select,
    retry: () => setAttempt((a) => a + 1)
  }
}
