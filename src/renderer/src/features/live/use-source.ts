// Opens the chosen source and keeps the device lists current. The live context owns the resulting
// MediaStream (so a broadcast survives navigation); this hook only decides what to open and when.
// A camera's microphone, or a screen's own sound, goes through a mix (source-mix.ts): the capture is
// held with its mix, and the microphone's processing switches are applied to the open track.
import { useCallback, useEffect, useRef, useState } from 'react'
import type { AppError } from '../../../../shared/result'
import type { CaptureKind, OutputSettings } from '../../../../shared/contract'
import { PROCESSING_KEYS, type MicProcessing } from '../../../../shared/audio'
import {
  appliedProcessing,
  applyMicProcessing,
  isScreenCancel,
  listDevices,
  mediaError,
  openCamera,
  openScreen
} from '../../lib/capture'
import { useLive } from './live-context'
import { mixSource } from './source-mix'

export interface SourceChoice {
  kind: CaptureKind
  videoDeviceId?: string
  audioDeviceId?: string
}

/** The processing switches each camera stream was opened with ('101': on, off, on). */
const openedWith = new WeakMap<MediaStream, string>()
const switchesKey = (p: MicProcessing): string =>
  PROCESSING_KEYS.map((k) => (p[k] ? 1 : 0)).join('')

export function useSource(
  choice: SourceChoice | null,
  output: OutputSettings,
  /** The microphone's processing switches (the saved settings). */
  processing: MicProcessing
) {
  const live = useLive()
  // A running broadcast or a recording keeps its source: switching now would cut it.
  const { setCapture, holdsSource: running, capture } = live
  const [devices, setDevices] = useState<{ video: MediaDeviceInfo[]; audio: MediaDeviceInfo[] }>({
    video: [],
    audio: []
  })
  const [error, setError] = useState<AppError | null>(null)
  const [opening, setOpening] = useState(false)
  const [attempt, setAttempt] = useState(0)

  const refreshDevices = useCallback(async () => {
    try {
      setDevices(await listDevices())
    } catch {
      // Device labels are a nicety; capture itself reports real problems.
    }
  }, [])

  useEffect(() => {
    void refreshDevices()
    navigator.mediaDevices?.addEventListener('devicechange', refreshDevices)
    return () => navigator.mediaDevices?.removeEventListener('devicechange', refreshDevices)
  }, [refreshDevices])

  // The camera opens with the switches as they are then (a switch does not reopen it here: the effect
  // below changes them on the open track, and reopens the camera only where the browser cannot).
  const asked = useRef(processing)
  asked.current = processing
  const { width, height, fps } = output
  useEffect(() => {
    // A running broadcast keeps its source: switching now would cut the stream.
    if (!choice || running) return
    // A scene opens its own captures (scenes/use-scene-program.ts).
    if (choice.kind === 'scene') return setOpening(false)
    if (choice.kind === 'test-pattern') {
      setOpening(false)
      setError(null)
      setCapture({ kind: 'test-pattern', stream: null })
      return
    }
    // The screen picker needs a click; it opens from openScreenNow.
    if (choice.kind === 'screen') return setOpening(false)
    let cancelled = false
    setOpening(true)
    const out = { ...output, width, height, fps }
    const switches = asked.current
    openCamera(out, choice.videoDeviceId, choice.audioDeviceId, switches)
      .then((stream) => {
        if (cancelled) return stream.getTracks().forEach((t) => t.stop())
        openedWith.set(stream, switchesKey(switches))
        setError(null)
        setCapture({ kind: 'camera', ...mixSource('camera', stream) })
        void refreshDevices() // labels appear once permission is granted
      })
      .catch((e: unknown) => {
        if (cancelled) return
        setCapture(null)
        setError(mediaError(e))
      })
      .finally(() => !cancelled && setOpening(false))
    return () => {
      cancelled = true
      setOpening(false)
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [choice?.kind, choice?.videoDeviceId, choice?.audioDeviceId, width, height, fps, attempt])

  const openScreenNow = useCallback(async () => {
    setOpening(true)
    try {
      const stream = await openScreen(output)
      setError(null)
      setCapture({ kind: 'screen', ...mixSource('screen', stream) })
    } catch (e) {
      if (!isScreenCancel(e)) setError(mediaError(e, 'screen'))
    } finally {
      setOpening(false)
    }
  }, [output, setCapture])

  const { noiseSuppression, echoCancellation, autoGainControl } = processing
  const mix = capture?.kind === 'camera' ? (capture.mix ?? null) : null
  const source = capture?.kind === 'camera' ? (capture.source ?? null) : null
  const micTrack = source?.getAudioTracks()[0]
  useEffect(() => {
    if (!mix || !source || !micTrack) return mix?.setApplied(null)
    const want = { noiseSuppression, echoCancellation, autoGainControl }
    // Opened with these switches: what it shows is all the browser does (never reopened again).
    const opened = openedWith.get(source) === switchesKey(want)
    let cancelled = false
    void (
      opened ? Promise.resolve(true) : applyMicProcessing(micTrack, want, choice?.audioDeviceId)
    ).then((done) => {
      if (cancelled) return
      mix.setApplied(appliedProcessing(micTrack))
      // Chromium fixes the processing when it opens the device: the camera opens again with it
      // (not while live or recording, which keep their source).
      if (!done && !running) setAttempt((a) => a + 1)
    })
    return () => {
      cancelled = true
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [mix, micTrack, noiseSuppression, echoCancellation, autoGainControl])

  return {
    devices,
    error,
    opening,
    retry: () => setAttempt((a) => a + 1),
    openScreenNow
  }
}
