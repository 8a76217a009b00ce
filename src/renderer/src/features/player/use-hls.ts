// hls.js is big and only needed when someone presses Play, so it is imported on demand (its own chunk,
// outside the initial bundle). Fatal errors are surfaced for the Retry button instead of a frozen frame.
import { useCallback, useEffect, useState, type RefObject } from 'react'
import type { AppError } from '../../../../shared/result'

export interface Rendition {
  index: number
  width: number
  height: number
  bitrate: number
  name?: string
}

export interface HlsState {
  renditions: Rendition[]
  /** -1 = automatic selection. */
  selected: number
  playing: Rendition | null
  error: AppError | null
  loading: boolean
  select: (index: number) => void
  retry: () => void
}

type HlsInstance = import('hls.js').default

/** hls.js names its errors for developers (manifestLoadError...); say what part failed instead. */
function describeHlsError(details: string): string {
  if (details.startsWith('manifest')) return "the recording's playlist could not be loaded"
  if (details.startsWith('level')) return "a rendition's playlist could not be loaded"
  if (details.startsWith('frag') || details.startsWith('key'))
    return 'a video segment could not be loaded'
  if (details.startsWith('buffer')) return 'the video could not be decoded'
  return details
}

export function useHls(video: RefObject<HTMLVideoElement | null>, url: string): HlsState {
  const [renditions, setRenditions] = useState<Rendition[]>([])
  const [selected, setSelected] = useState(-1)
  const [playingIndex, setPlayingIndex] = useState<number | null>(null)
  const [error, setError] = useState<AppError | null>(null)
  const [loading, setLoading] = useState(true)
  const [hls, setHls] = useState<HlsInstance | null>(null)
  const [attempt, setAttempt] = useState(0)

  useEffect(() => {
    const el = video.current
    if (!el) return
    let disposed = false
    let instance: HlsInstance | null = null
    setLoading(true)
    setError(null)
    setRenditions([])
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
        instance = new Hls({ enableWorker: true })
        setHls(instance)
        instance.on(Hls.Events.MANIFEST_PARSED, (_e, data) => {
          setRenditions(
            data.levels.map((l, index) => ({
              index,
              width: l.width,
              height: l.height,
              bitrate: l.bitrate,
              name: l.name
            }))
          )
          setLoading(false)
          void el.play().catch(() => {
            // Autoplay may be refused; the controls are there for the viewer to press play.
          })
        })
        instance.on(Hls.Events.LEVEL_SWITCHED, (_e, data) => setPlayingIndex(data.level))
        instance.on(Hls.Events.ERROR, (_e, data) => {
          if (!data.fatal) return
          setLoading(false)
          const status = data.response?.code ? ` (HTTP ${data.response.code})` : ''
          setError({
            code: data.type === Hls.ErrorTypes.NETWORK_ERROR ? 'network' : 'internal',
            message: `Playback failed: ${describeHlsError(data.details)}${status}.`,
            hint:
              data.type === Hls.ErrorTypes.NETWORK_ERROR
                ? 'The recording could not be fetched. Check the connection and retry.'
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
      instance?.destroy()
      setHls(null)
    }
  }, [video, url, attempt])

  const select = useCallback(
    (index: number) => {
      setSelected(index)
      // currentLevel switches now (flushing the buffer); -1 hands the choice back to the ABR logic.
      if (hls) hls.currentLevel = index
    },
    [hls]
  )

  return {
    renditions,
    selected,
    playing: playingIndex === null ? null : (renditions[playingIndex] ?? null),
    error,
    loading,
    select,
    retry: () => setAttempt((a) => a + 1)
  }
}
