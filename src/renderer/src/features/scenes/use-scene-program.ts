// Keeps a scene program in its host (the live context) while the Scene source is chosen: creates it,
// shows the scenes as they are edited, and opens each camera device the scenes show (once, however
// many sources show it; closed when none does) and the microphone, and, on a click, a screen source's
// share (each screen source its own; closed with its source).
// Each capture fails on its own with a named error; the program goes on with the others.
import { useCallback, useEffect, useReducer, useRef, useState } from 'react'
import type { OutputSettings } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import {
  SCREEN_ID,
  cameraDevice,
  captureKey,
  needs,
  type ScenesState
} from '../../../../shared/scenes'
import {
  PROCESSING_KEYS,
  type AudioSettings,
  type MicProcessing,
  type MicSettings
} from '../../../../shared/audio'
import { useApi } from '../../lib/api'
import {
  appliedProcessing,
  applyMicProcessing,
  isScreenCancel,
  mediaError,
  openCameraVideo,
  openMicrophone,
  openScreen
} from '../../lib/capture'
import { FIRST_SCREEN, SceneProgram, type ScenesUpdate, type Slot } from './program'
import { useMixSettings } from './use-mix-settings'

/**
 * Where the program lives while it runs: the live run (features/live) holds it, so a broadcast
 * survives navigation. Scenes know it only through this, and never import the live feature.
 */
export interface ProgramHost {
  /** The program held now, if any. */
  program: SceneProgram | null
  /** A broadcast is running: the program it has is kept as it is. */
  running: boolean
  /** Hands a new program to the host (which releases whatever it held before). */
  hold(program: SceneProgram): void
}

/** The processing switches each microphone stream was opened with (switchesKey). */
const processingOf = new WeakMap<MediaStream, string>()
const switchesKey = (p: MicProcessing): string =>
  PROCESSING_KEYS.map((k) => (p[k] ? 1 : 0)).join('')

export interface SceneDevices {
  videoDeviceId?: string
  audioDeviceId?: string
}

export interface SceneErrors {
  camera?: AppError
  mic?: AppError
  screen?: AppError
  program?: AppError
}

export function useSceneProgram(
  host: ProgramHost,
  active: boolean,
  output: OutputSettings,
  scenes: ScenesState | null,
  devices: SceneDevices,
  /** Applies a change made on the program (the mixer, the live bar's mute) to the kept scenes. */
  changeScenes: (update: ScenesUpdate) => void,
  /** The microphone's processing switches, gate and push-to-talk (the saved settings). */
  mic: MicSettings,
  /** Each source's chain: gain, compressor, limiter, sync offset, monitoring (the saved settings). */
  audio: AudioSettings
) {
  const api = useApi()
  const { program, running, hold } = host
  const [errors, setErrors] = useState<SceneErrors>({})
  const [attempt, setAttempt] = useState(0)
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  // Which device each open capture came from: a new pick reopens it, a retry reopens only what failed.
  const openedWith = useRef<Partial<Record<Slot, string | undefined>>>({})
  const setError = useCallback(
    (slot: keyof SceneErrors, e: AppError | undefined) =>
      setErrors((all) => ({ ...all, [slot]: e })),
    []
  )

  // One program while the Scene source is chosen; a running broadcast keeps whatever it has.
  useEffect(() => {
    if (!active || running || program) return
    try {
      const p = new SceneProgram(
        output,
        async (file) => {
          const r = await api.readSceneImage(file)
          return r.ok ? r.value : null
        },
        api
      )
      hold(p)
      setError('program', undefined)
    } catch (e) {
      setError('program', {
        code: 'media',
        message: e instanceof Error ? e.message : String(e),
        hint: 'Use the camera or the test pattern source instead.'
      })
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [active, running, program])

  useEffect(() => program?.onChange(rerender), [program])

  const { width, height, fps } = output
  useEffect(() => {
    if (program && !running) program.setOutput({ ...output, width, height, fps })
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [program, width, height, fps, running])

  useEffect(() => {
    if (program && scenes) program.setScenes(scenes)
  }, [program, scenes])

  // After the scenes are shown (above): changes the program kept while no one held them come here.
  const loaded = scenes !== null
  useEffect(
    () => (program && loaded ? program.keepScenesWith(changeScenes) : undefined),
    [program, loaded, changeScenes]
  )

  // The Devices camera by its device: the one chosen in the settings, else the device the default
  // camera turned out to be once opened. A camera source following it and one that picked the same
  // device are then one capture; when it changes, its followers move with it.
  const [defaultCamera, setDefaultCamera] = useState<string>()
  const devicesCamera = devices.videoDeviceId ?? defaultCamera
  useEffect(() => program?.setDevicesCamera(devicesCamera), [program, devicesCamera])

  // Each camera device opens when any scene shows it (the Devices camera for a camera source with no
  // device of its own), once; the microphone always (a screen-only scene still talks).
  const cameras = new Map<Slot, string | undefined>()
  for (const s of scenes?.scenes ?? [])
    for (const c of needs(scenes!, s).cameras)
      cameras.set(captureKey(c, devicesCamera)!, cameraDevice(c, devicesCamera))
  const camerasKey = [...cameras].map(([slot, id]) => `${slot}=${id ?? ''}`).join('|')
  // Each screen source's share lives as long as its source.
  const screens: Slot[] = (scenes?.sources ?? []).flatMap((s) =>
    s.kind === 'screen' ? [captureKey(s)!] : []
  )
  const screensKey = screens.join('|')
  /**
   * Opens a device into its slot, unless it is open on that device already; a failure is named on the
   * slot. Returns the effect's cleanup: a device that opens after it is dropped and stopped.
   */
  const openDevice = (
    slot: Slot,
    deviceId: string | undefined,
    open: () => Promise<MediaStream>
  ): (() => void) | undefined => {
    if (!program) return
    if (program.capture(slot) && openedWith.current[slot] === deviceId) return
    // Every camera's failure is named as the camera's (the last one to fail).
    const named = slot === 'mic' ? 'mic' : 'camera'
    let cancelled = false
    open().then(
      (s) => {
        if (cancelled) return s.getTracks().forEach((t) => t.stop())
        openedWith.current[slot] = deviceId
        program.setCapture(slot, s)
        setError(named, undefined)
        // The default camera: its device is known now (its capture then moves to that device's slot).
        if (slot === 'camera:') setDefaultCamera(s.getVideoTracks()[0]?.getSettings().deviceId)
      },
      (e: unknown) =>
        !cancelled && setError(named, mediaError(e, slot === 'mic' ? 'microphone' : 'camera'))
    )
    return () => {
      cancelled = true
    }
  }

  useEffect(() => {
    if (!program) return
    for (const slot of program.videoSlots())
      if (slot.startsWith('camera:') && !cameras.has(slot)) {
        // An open device now named otherwise (the default camera, once its device is known) moves to
        // its slot; a device no scene shows any more is closed (its track stopped).
        const device = program.capture(slot)?.getVideoTracks()[0]?.getSettings().deviceId
        const to = device ? (`camera:${device}` as const) : undefined
        if (to && cameras.has(to) && !program.capture(to)) {
          program.moveCapture(slot, to)
          openedWith.current[to] = device
        } else program.setCapture(slot, null)
        delete openedWith.current[slot]
      }
    const cancels = [...cameras].map(([slot, deviceId]) =>
      openDevice(slot, deviceId, () => openCameraVideo({ ...output, width, height, fps }, deviceId))
    )
    return () => cancels.forEach((cancel) => cancel?.())
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [program, camerasKey, attempt])

  useEffect(() => {
    if (!program) return
    for (const slot of program.videoSlots())
      if (slot.startsWith('screen:') && !screens.includes(slot)) program.setCapture(slot, null)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [program, screensKey])

  // The microphone opens with the switches as they are when it opens (read through a ref, so a switch
  // does not reopen it here: the effect below changes them on the open track).
  const processing = useRef(mic.processing)
  processing.current = mic.processing
  useEffect(
    () =>
      openDevice('mic', devices.audioDeviceId, () => {
        const asked = processing.current
        return openMicrophone(devices.audioDeviceId, asked).then((s) => {
          processingOf.set(s, switchesKey(asked))
          return s
        })
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [program, devices.audioDeviceId, attempt]
  )

  // A processing switch: changed on the open track where the browser can, else the microphone is
  // opened again with it (the mix's channel takes the new track; the broadcast goes on). Either way
  // the mixer shows what the browser reports it applied.
  const micStream = program?.capture('mic') ?? null
  const { noiseSuppression, echoCancellation, autoGainControl } = mic.processing
  useEffect(() => {
    const track = micStream?.getAudioTracks()[0]
    if (!program || !micStream || !track) return program?.mix.setApplied(null)
    const asked = { noiseSuppression, echoCancellation, autoGainControl }
    let cancelled = false
    void (async () => {
      // Opened with these switches: what it shows is all the browser does (never reopened again).
      const done = processingOf.get(micStream) === switchesKey(asked)
      if (done || (await applyMicProcessing(track, asked, devices.audioDeviceId))) {
        if (!cancelled) program.mix.setApplied(appliedProcessing(track))
        return
      }
      try {
        // Chromium keeps one set of processing per open device: the old track goes first (a moment
        // of silence), then the microphone opens with the new switches.
        track.stop()
        const s = await openMicrophone(devices.audioDeviceId, asked)
        if (cancelled) return s.getTracks().forEach((t) => t.stop())
        processingOf.set(s, switchesKey(asked))
        program.setCapture('mic', s)
        setError('mic', undefined)
      } catch (e) {
        if (!cancelled) setError('mic', mediaError(e, 'microphone'))
      }
    })()
    return () => {
      cancelled = true
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [program, micStream, noiseSuppression, echoCancellation, autoGainControl])

  useMixSettings(program?.mix ?? null, mic, audio)

  /**
   * Shares a screen or window into a screen source (the first one when not named). From a click:
   * browsers (and Electron's chooser) need the user's gesture to share a screen.
   */
  const shareScreen = useCallback(
    async (sourceId: string = SCREEN_ID) => {
      if (!program) return
      program.mix.resume()
      try {
        program.setCapture(`screen:${sourceId}`, await openScreen(output))
        setError('screen', undefined)
      } catch (e) {
        // Closing the chooser without picking is a choice, not an error.
        if (isScreenCancel(e)) return
        setError('screen', mediaError(e, 'screen'))
      }
    },
    [program, output, setError]
  )

  const stopScreen = useCallback(
    (sourceId: string = SCREEN_ID) => program?.setCapture(`screen:${sourceId}`, null),
    [program]
  )

  return {
    program,
    errors,
    retry: () => setAttempt((a) => a + 1),
    shareScreen,
    stopScreen,
    sharing: !!program?.capture(FIRST_SCREEN),
    /** Whether a screen source is shared now. */
    sharingOf: (sourceId: string) => !!program?.capture(`screen:${sourceId}`)
  }
}
