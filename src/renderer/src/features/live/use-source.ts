// Opens the chosen source and keeps the device lists current. The live context owns the resulting
// MediaStream (so a broadcast survives navigation); this hook only decides what to open and when.
import { useCallback, useEffect, useState } from 'react'
import type { AppError } from '../../../../shared/result'
import type { CaptureKind, OutputSettings } from '../../../../shared/contract'
import { isScreenCancel, listDevices, mediaError, openCamera, openScreen } from '../../lib/capture'
import { useLive } from './live-context'

export interface SourceChoice {
  kind: CaptureKind
  videoDeviceId?: string
  audioDeviceId?: string
}

export function useSource(choice: SourceChoice | null, output: OutputSettings) {
  const live = useLive()
  // A running broadcast or a recording keeps its source: switching now would cut it.
  const { setCapture, holdsSource: running } = live
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
    openCamera(out, choice.videoDeviceId, choice.audioDeviceId)
      .then((stream) => {
        if (cancelled) return stream.getTracks().forEach((t) => t.stop())
        setError(null)
        setCapture({ kind: 'camera', stream })
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
      setCapture({ kind: 'screen', stream })
    } catch (e) {
      if (!isScreenCancel(e)) setError(mediaError(e, 'screen'))
    } finally {
      setOpening(false)
    }
  }, [output, setCapture])

  return {
    devices,
    error,
    opening,
    retry: () => setAttempt((a) => a + 1),
    openScreenNow
  }
}
