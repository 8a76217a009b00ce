// Record without going live (#34 §2, OBS's Record button), the page's half: the capture on Go live
// (camera, screen or scene) goes to the recording's own encoder in main (startRecording, then raw frames
// by pushFrames(recordingId) from a RawPusher, as a live run of Onair's encoder does) with the Output's
// settings. It is apart from any live run: Go live, Stop, a reconnect or a failed run never touch it,
// and Stop recording never touches the broadcast. A recording that stops by itself (a full disk,
// the encoder gone) is named, with what was kept and the way on.
import { useCallback, useEffect, useRef, useState } from 'react'
import type { CaptureKind, OnairApi, OutputSettings } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { appEncoderLabel } from './encoder-text'
import { RawPusher } from './engine/raw-pusher'
import { WebCodecsPusher } from './engine/webcodecs-pusher'

export interface RecordingNow {
  /** null until main has answered startRecording. */
  id: string | null
  state: 'starting' | 'recording' | 'stopping'
  /** ms since epoch: when the frames began to go (the live bar's clock counts from it). */
  since: number
}

export interface RecordingControls {
  recording: RecordingNow | null
  recordError: AppError | null
  /** Starts recording the open source with these Output settings (else the live run's). */
  startRecording: (output?: OutputSettings) => Promise<void>
  /** Hands main the last frames, then ends the file (resolves once it is finished). */
  stopRecording: () => Promise<void>
  clearRecordError: () => void
}

interface Current {
  id: string | null
  pusher: RawPusher | null
  stopping: boolean
}

export function useRecording(
  api: OnairApi,
  o: {
    /** The source open on Go live (the live run's, while live). */
    capture: () => { kind: CaptureKind; stream: MediaStream | null } | null
    /** The Output settings of the live run, for Record pressed in the live bar. */
    output: () => OutputSettings | null
    /** The recording ended: the caller lets the source go if nothing else holds it. */
    ended: () => void
  }
): RecordingControls & { active: () => boolean } {
  const [recording, setRecording] = useState<RecordingNow | null>(null)
  const [recordError, setRecordError] = useState<AppError | null>(null)
  const cur = useRef<Current | null>(null)
  const opts = useRef(o)
  opts.current = o

  const finish = useCallback(() => {
    cur.current = null
    setRecording(null)
    opts.current.ended()
  }, [])

  /** The recording ended without Stop recording: say why; main keeps and finishes what was written. */
  const lost = useCallback(
    (e: AppError) => {
      const c = cur.current
      if (!c || c.stopping) return
      c.stopping = true
      c.pusher?.abandon()
      // Lets main's encoder go (answers not-found when it had ended by itself).
      if (c.id) void api.stopRecording(c.id)
      setRecordError(e)
      finish()
    },
    [api, finish]
  )

  useEffect(
    () =>
      api.on('live:local-recording', (v) => {
        const c = cur.current
        if (!c || c.stopping || c.id !== v.runId || v.state === 'recording') return
        if (v.state === 'stopped')
          lost({
            code: v.error?.code === 'disk-full' ? 'disk-full' : 'local-recording',
            message: `The recording stopped: ${v.error?.message ?? 'its file could not be written.'} What was recorded is kept: ${v.file}`,
            hint: v.error?.hint ?? 'Free some space or choose another folder, then press Record.'
          })
        else
          lost({
            code: 'encoder-failed',
            message: `The recording stopped: Onair's encoder ended. What was recorded is kept: ${v.file}`,
            hint: 'Press Record to go on in a new file.'
          })
      }),
    [api, lost]
  )

  // A recording main still writes with no page feeding it (this page was reloaded or closed while
  // recording): it is finished, and the creator told where it is.
  useEffect(() => {
    let alive = true
    void api.listRecordings().then(async (r) => {
      const orphan = r.ok ? r.value.find((x) => x.state === 'recording') : undefined
      if (!alive || !orphan || cur.current) return
      await api.stopRecording(orphan.runId)
      if (alive)
        setRecordError({
          code: 'local-recording',
          message: `A recording was still going when this window was reloaded or closed; it was stopped and kept: ${orphan.file}`,
          hint: 'Press Record to record again.'
        })
    })
    return () => {
      alive = false
    }
  }, [api])

  // The page going away stops feeding (main's file is finished by the next page, as above).
  useEffect(() => () => cur.current?.pusher?.abandon(), [])

  const startRecording = useCallback(
    async (given?: OutputSettings) => {
      if (cur.current) return
      setRecordError(null)
      const output = given ?? opts.current.output()
      const c = opts.current.capture()
      if (!output || !c)
        return setRecordError({
          code: 'media',
          message: 'There is nothing to record yet: no source is open.',
          hint: 'Open Go live, choose a camera, a screen or a scene, then press Record.'
        })
      if (!c.stream)
        return setRecordError({
          code: 'media',
          message:
            c.kind === 'test-pattern'
              ? 'The test pattern is made only while live, so it cannot be recorded on its own.'
              : 'The source is not open yet.',
          hint: 'Choose a camera, a screen or a scene on Go live, or go live with Record on this computer on.'
        })
      const stream = c.stream
      const me: Current = { id: null, pusher: null, stopping: false }
      cur.current = me
      setRecording({ id: null, state: 'starting', since: Date.now() })
      const r = await api.startRecording({
        source: { kind: 'media', mimeType: WebCodecsPusher.mimeType(stream) },
        output
      })
      if (!r.ok) {
        setRecordError(r.error)
        return finish()
      }
      const id = r.value.recordingId
      me.id = id
      const enc = r.value.encoder
      const label = enc.kind === 'app' ? appEncoderLabel(enc, output) : 'x264'
      const p = new RawPusher(
        api,
        id,
        stream,
        output,
        { id: enc.kind === 'app' ? enc.id : 'x264', label },
        (e) => lost({ ...e, message: `The recording stopped: ${e.message}` })
      )
      me.pusher = p
      try {
        await p.start()
      } catch (e) {
        return lost({
          code: 'media',
          message: `The recording could not read the source: ${String(e)}.`,
          hint: 'Open the source again on Go live, then press Record.'
        })
      }
      if (cur.current === me && !me.stopping)
        setRecording({ id, state: 'recording', since: Date.now() })
    },
    [api, finish, lost]
  )

  const stopRecording = useCallback(async () => {
    const c = cur.current
    if (!c || !c.id || c.stopping) return
    c.stopping = true
    setRecording((r) => r && { ...r, state: 'stopping' })
    await c.pusher?.stop()
    const r = await api.stopRecording(c.id)
    if (!r.ok) setRecordError(r.error)
    finish()
  }, [api, finish])

  const active = useCallback(() => cur.current !== null, [])
  const clearRecordError = useCallback(() => setRecordError(null), [])
  return { recording, recordError, startRecording, stopRecording, clearRecordError, active }
}
