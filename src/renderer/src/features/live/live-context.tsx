// The live run outlives any one screen: the camera, the recorder and the run's state live here, above
// the navigation, so leaving "Go live" never stops a broadcast or its preview.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react'
import type { ReactNode } from 'react'
import type {
  CaptureKind,
  LiveHealthEvent,
  LiveStateEvent,
  OutputSettings,
  RunEncoder
} from '../../../../shared/contract'
import { isFinal, isRunning } from '../../../../shared/live-state'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { pickMimeType, stopTracks } from '../../lib/capture'
import { LiveRunContext, type LiveRunView } from '../../lib/live-run'
import { MediaPusher } from './engine/media-recorder-pusher'
import type { EncoderStats, Pusher } from './engine/pusher'
import { WebCodecsPusher, browserEncoderSupport } from './engine/webcodecs-pusher'
import { RawPusher } from './engine/raw-pusher'
import { appEncoderLabel, autoNote, fallbackNote, hardwareFallbackNote } from './encoder-text'
import { chooseEncoder } from './engine/encoder-plan'
import type { SceneProgram } from '../scenes/program'
import type { AudioMix } from '../scenes/mixer'
import { useLevelSavedAnywhere, useMixHotkeys } from './source-mix'
import { WhipPublisher, type WebRtcStats } from './engine/whip-publisher'
import { outputStream, type OutputStream } from './engine/output-track'
import { useRecording, type RecordingControls } from './use-recording'

export interface Capture {
  kind: CaptureKind
  stream: MediaStream | null
  /** A scene broadcast: `stream` is the program's output; releasing it releases every capture in it. */
  program?: SceneProgram
  /** A camera or a screen: its sound's mix (source-mix.ts); `stream` has the mix's track. */
  mix?: AudioMix
  /** A camera or a screen: the capture as opened, under the mix. */
  source?: MediaStream
}

/** Stops what a capture holds: the camera light goes off. */
function release(c: Capture | null): void {
  if (c?.program) return c.program.dispose()
  stopTracks(c?.source ?? null)
  stopTracks(c?.stream ?? null)
  c?.mix?.dispose()
}

export interface LiveContextValue extends RecordingControls {
  run: LiveStateEvent | null
  health: LiveHealthEvent | null
  /** When congestion first reached 2+ without easing since (ms), for the sustained-trouble warning. */
  troubleSince: number | null
  capture: Capture | null
  /** The run's encoder, as the health strip shows it; null without a run from the page. */
  encoder: EncoderStats | null
  /** Why the browser's encoder makes this run's picture when Onair's was asked for; null otherwise. */
  encoderNote: string | null
  /** A Low latency (WebRTC) run's figures from getStats(); null otherwise. */
  webrtc: WebRtcStats | null
  error: AppError | null
  busy: boolean
  running: boolean
  /** A run or a recording uses the source: it must not be switched or let go. */
  holdsSource: boolean
  setCapture: (c: Capture | null) => void
  start: (streamId: string, output: OutputSettings, recordLocally?: boolean) => Promise<void>
  stop: () => Promise<void>
  retryNow: () => Promise<void>
  clearError: () => void
  /** The Go live screen registers while it shows the preview; a run that ends unseen releases the camera. */
  attachPreview: () => () => void
}

const LiveContext = createContext<LiveContextValue | null>(null)

export function LiveProvider({ children }: { children: ReactNode }): ReactNode {
  const api = useApi()
  const [run, setRun] = useState<LiveStateEvent | null>(null)
  const [health, setHealth] = useState<LiveHealthEvent | null>(null)
  const [troubleSince, setTroubleSince] = useState<number | null>(null)
  const [capture, setCaptureState] = useState<Capture | null>(null)
  const [error, setError] = useState<AppError | null>(null)
  const [encoder, setEncoder] = useState<EncoderStats | null>(null)
  const [encoderNote, setEncoderNote] = useState<string | null>(null)
  const [webrtc, setWebrtc] = useState<WebRtcStats | null>(null)
  const whip = useRef<WhipPublisher | null>(null)
  /** A WebRTC run's picture at the Output's size, and its local copy's encoder (Record on this computer). */
  const whipOut = useRef<{ sent: OutputStream; copy: Pusher | null } | null>(null)
  const [busy, setBusy] = useState(false)
  const pusher = useRef<Pusher | null>(null)
  const runId = useRef<string | null>(null)
  const captureRef = useRef<Capture | null>(null)
  const previews = useRef(0)
  /** The Output settings the run was started with (Record pressed in the live bar uses them). */
  const runOutput = useRef<OutputSettings | null>(null)
  const runningNow = useRef(false)
  runningNow.current = isRunning(run?.state)
  // Record without going live: its own encoder in main, fed from the same capture as the run.
  const rec = useRecording(api, {
    capture: () => captureRef.current,
    output: () => (runningNow.current ? runOutput.current : null),
    ended: () => {
      if (previews.current > 0 || runningNow.current || !captureRef.current) return
      release(captureRef.current)
      captureRef.current = null
      setCaptureState(null)
    }
  })
  const recActive = rec.active

  useEffect(() => {
    let alive = true
    void api.liveStatus().then((r) => {
      if (alive && r.ok && r.value) {
        runId.current = r.value.runId
        setRun(r.value)
      }
    })
    const offState = api.on('live:state', (e) => {
      runId.current = e.runId
      setRun(e)
      if (isFinal(e.state)) {
        pusher.current?.abandon()
        pusher.current = null
        setEncoder(null)
        setTroubleSince(null)
        // A recording still going keeps the source (stopping the stream keeps recording).
        if (previews.current === 0 && captureRef.current && !recActive()) {
          release(captureRef.current)
          captureRef.current = null
          setCaptureState(null)
        }
      }
    })
    const offHealth = api.on('live:health', (h) => {
      setHealth(h)
      setTroubleSince((since) => (h.congestion >= 2 || h.shortfall ? (since ?? h.at) : null))
    })
    // Main's uplink controller: the page's encoder follows its bitrate, and makes a keyframe after a
    // drop. Only for the run this page is pushing (an event of an older run is stale), and only when
    // the page encodes: Onair's encoder hears the controller in main.
    const offEncoder = api.on('live:encoder', (e) => {
      const p = pusher.current
      if (!p || e.runId !== runId.current || p.stats.path === 'app') return
      p.setVideoBitrate(e.videoBitrateKbps)
      if (e.keyframe) p.requestKeyframe()
    })
    return () => {
      alive = false
      offState()
      offHealth()
      offEncoder()
    }
  }, [api, recActive])

  // Closing the app's page (or losing Onair itself) must not leave the camera light on.
  useEffect(
    () => () => {
      pusher.current?.abandon()
      whipOut.current?.copy?.abandon()
      whipOut.current?.sent.release()
      release(captureRef.current)
    },
    []
  )

  const setCapture = useCallback((c: Capture | null) => {
    if (captureRef.current && captureRef.current.stream !== c?.stream) release(captureRef.current)
    captureRef.current = c
    setCaptureState(c)
  }, [])

  /**
   * Record on this computer in a WebRTC run: the frames that are sent, encoded a second time by the
   * page's own encoder (WebCodecs, else MediaRecorder) at the Output's size and bitrate, and handed to
   * main with pushMedia(runId), which writes them as it writes a camera run's copy. A copy that fails
   * says so; the broadcast goes on.
   */
  const startWhipCopy = useCallback(
    async (id: string, stream: MediaStream, output: OutputSettings) => {
      const onError = (e: AppError): void =>
        setError({
          code: 'local-recording',
          message: `Recording on this computer stopped: ${e.message} The broadcast goes on.`,
          hint: e.hint
        })
      const webcodecs = chooseEncoder(await browserEncoderSupport(output), output.encoder)
      const mimeType = webcodecs ? WebCodecsPusher.mimeType(stream) : pickMimeType()
      if (!mimeType)
        return onError({ code: 'media', message: 'This system has no encoder for the copy.' })
      const copy: Pusher = webcodecs
        ? new WebCodecsPusher(api, id, stream, output, webcodecs, onError)
        : new MediaPusher(api, id, stream, mimeType, output, onError)
      const out = whipOut.current
      if (!out || whip.current?.id !== id) return
      out.copy = copy
      try {
        await copy.start()
      } catch (e) {
        copy.abandon()
        out.copy = null
        onError({ code: 'media', message: `The encoder could not start: ${String(e)}.` })
      }
    },
    [api]
  )

  /**
   * Ends a WebRTC run: its local copy's last bytes first (main closes the file at whipStop), then the
   * WHIP session, then the fitting of its picture.
   */
  const endWhip = useCallback(async () => {
    const p = whip.current
    const out = whipOut.current
    whip.current = null
    whipOut.current = null
    await out?.copy?.stop()
    await p?.stop()
    out?.sent.release()
  }, [])

  // Low latency (WebRTC): the page's own peer connection; its run lives here, not in main.
  const startWhip = useCallback(
    async (streamId: string, output: OutputSettings, c: Capture, recordLocally: boolean) => {
      if (!c.stream)
        return setError({
          code: 'media',
          message: 'Low latency (WebRTC) sends a camera, screen or scene, not the test pattern.',
          hint: 'Choose another source, or RTMP in Output.'
        })
      setBusy(true)
      setHealth(null)
      setEncoder(null)
      setWebrtc(null)
      const base = { runId: '', streamId, streamName: '' }
      // What is sent: the Output's size and frame rate, as for RTMP (output-track.ts).
      const sent = outputStream(c.stream, output)
      const p = new WhipPublisher(
        api,
        sent.stream,
        output,
        (state, err) => {
          setRun((r) => {
            const cur = r ?? { ...base, state: 'connecting' as const }
            if (state === 'live')
              return { ...cur, state: 'live', liveSince: cur.liveSince ?? Date.now() }
            if (state === 'failed') return { ...cur, state: 'failed', error: err }
            return { ...cur, state: 'ended' }
          })
          if (state === 'failed') {
            void endWhip()
            setWebrtc(null)
          }
        },
        setWebrtc
      )
      whip.current = p
      whipOut.current = { sent, copy: null }
      setRun({ ...base, state: 'connecting' })
      const r = await p.start(streamId, recordLocally)
      if ('code' in r) {
        whip.current = null
        whipOut.current = null
        sent.release()
        setRun(null)
        setError(r)
      } else {
        runId.current = r.runId
        setRun((cur) => ({ ...(cur ?? { ...base, state: 'connecting' }), ...r }))
        if (recordLocally) await startWhipCopy(r.runId, sent.stream, output)
      }
      setBusy(false)
    },
    [api, endWhip, startWhipCopy]
  )

  const start = useCallback(
    async (streamId: string, output: OutputSettings, recordLocally = false) => {
      const c = captureRef.current
      setError(null)
      runOutput.current = output
      if (!c) return setError({ code: 'media', message: 'Choose a source first.' })
      if (output.transport === 'webrtc') return startWhip(streamId, output, c, recordLocally)
      let mimeType: string | undefined
      let webcodecs: ReturnType<typeof chooseEncoder>
      if (c.kind !== 'test-pattern') {
        if (!c.stream) return setError({ code: 'media', message: 'The source is not open yet.' })
        // Onair's encoder unless the Output says the browser's (main answers which runs). The page's
        // own, the fallback, is WebCodecs where it has H.264 and MediaRecorder where it has not.
        webcodecs = chooseEncoder(await browserEncoderSupport(output), output.encoder)
        mimeType = webcodecs ? WebCodecsPusher.mimeType(c.stream) : pickMimeType()
        if (!mimeType && output.videoEncoder !== 'browser')
          mimeType = WebCodecsPusher.mimeType(c.stream)
        if (!mimeType)
          return setError({
            code: 'media',
            message: 'This system cannot encode video for streaming (no MediaRecorder format).',
            hint: 'Use the test pattern source.'
          })
      }
      setBusy(true)
      setHealth(null)
      setEncoder(null)
      setEncoderNote(null)
      const r = await api.goLive({
        streamId,
        source: mimeType ? { kind: 'media', mimeType } : { kind: 'test-pattern' },
        output,
        recordLocally
      })
      if (!r.ok) {
        setBusy(false)
        return setError(r.error)
      }
      runId.current = r.value.runId
      const ran: RunEncoder = r.value.encoder ?? { kind: 'browser' }
      if (ran.kind === 'browser' && ran.auto) setEncoderNote(autoNote(ran.auto))
      else if (ran.kind === 'browser' && ran.failure) setEncoderNote(fallbackNote(ran.failure))
      if (ran.kind === 'app' && ran.fallback)
        setEncoderNote(hardwareFallbackNote(ran.fallback, appEncoderLabel(ran, output)))
      if (mimeType && c.stream) {
        const onError = (e: AppError): void => {
          setError(e)
          void api.stopLive(r.value.runId)
        }
        try {
          const p: Pusher =
            ran.kind === 'app'
              ? new RawPusher(
                  api,
                  r.value.runId,
                  c.stream,
                  output,
                  { id: ran.id, label: appEncoderLabel(ran, output) },
                  onError,
                  setEncoder
                )
              : webcodecs
                ? new WebCodecsPusher(
                    api,
                    r.value.runId,
                    c.stream,
                    output,
                    webcodecs,
                    onError,
                    setEncoder
                  )
                : new MediaPusher(api, r.value.runId, c.stream, mimeType, output, onError)
          pusher.current = p
          await p.start()
          setEncoder(p.stats)
        } catch (e) {
          pusher.current?.abandon()
          pusher.current = null
          setError({ code: 'media', message: `The encoder could not start: ${String(e)}` })
          await api.stopLive(r.value.runId)
        }
      }
      setBusy(false)
    },
    [api, startWhip]
  )

  const stop = useCallback(async () => {
    if (whip.current) {
      setBusy(true)
      setRun((r) => (r ? { ...r, state: 'stopping' } : r))
      await endWhip()
      setWebrtc(null)
      setBusy(false)
      return
    }
    const id = runId.current
    if (!id) return
    setBusy(true)
    // Hand main the last recorded chunk before asking it to stop, so the recording ends where we did.
    await pusher.current?.stop()
    pusher.current = null
    const r = await api.stopLive(id)
    if (!r.ok) setError(r.error)
    setBusy(false)
  }, [api, endWhip])

  const retryNow = useCallback(async () => {
    if (!runId.current) return
    const r = await api.retryNow(runId.current)
    if (!r.ok) setError(r.error)
  }, [api])

  const attachPreview = useCallback(() => {
    previews.current++
    return () => {
      previews.current--
    }
  }, [])

  const value = useMemo<LiveContextValue>(
    () => ({
      run,
      health,
      troubleSince,
      capture,
      encoder,
      encoderNote,
      webrtc,
      error,
      busy,
      running: isRunning(run?.state),
      holdsSource: isRunning(run?.state) || rec.recording !== null,
      recording: rec.recording,
      recordError: rec.recordError,
      startRecording: rec.startRecording,
      stopRecording: rec.stopRecording,
      clearRecordError: rec.clearRecordError,
      setCapture,
      start,
      stop,
      retryNow,
      clearError: () => setError(null),
      attachPreview
    }),
    [
      run,
      health,
      troubleSince,
      capture,
      encoder,
      encoderNote,
      webrtc,
      error,
      busy,
      rec.recording,
      rec.recordError,
      rec.startRecording,
      rec.stopRecording,
      rec.clearRecordError,
      setCapture,
      start,
      stop,
      retryNow,
      attachPreview
    ]
  )
  // A camera's mute and talk keys, on every screen while its capture is open.
  useMixHotkeys(capture?.mix ?? null)
  // Its volume and mute changed on any screen (the live bar's Mute mic, the mute key) are kept.
  useLevelSavedAnywhere(capture?.mix ?? null, capture?.kind, api)
  // What other screens read of the run (lib/live-run.ts): they never import this page's code.
  const compositor = capture?.program?.compositor ?? null
  const pageSkips = encoder?.pipeSkips
  const runView = useMemo<LiveRunView>(
    () => ({ run, health, running: isRunning(run?.state), compositor, pageSkips }),
    [run, health, compositor, pageSkips]
  )
  return (
    <LiveRunContext.Provider value={runView}>
      <LiveContext.Provider value={value}>{children}</LiveContext.Provider>
    </LiveRunContext.Provider>
  )
}

export function useLive(): LiveContextValue {
  const v = useContext(LiveContext)
  if (!v) throw new Error('useLive outside LiveProvider')
  return v
}
