// Camera, microphone and screen capture, and how their failures are named. Browsers report capture
// problems as DOMException names; each becomes a sentence a creator can act on.
import type { OutputSettings } from '../../../shared/contract'
import type { AppError } from '../../../shared/result'
import { PROCESSING_KEYS, unapplied, type MicProcessing } from '../../../shared/audio'

/** H.264 first: main can then copy the video instead of re-encoding it. VP8/VP9 otherwise. */
const MIME_CANDIDATES = [
  'video/x-matroska;codecs=avc1,opus',
  'video/webm;codecs=h264,opus',
  'video/webm;codecs=vp9,opus',
  'video/webm;codecs=vp8,opus',
  'video/webm'
]

export function pickMimeType(): string | undefined {
  if (typeof MediaRecorder === 'undefined') return undefined
  return MIME_CANDIDATES.find((m) => MediaRecorder.isTypeSupported(m))
}

/** The output's size and rate as ideals (a camera gives its nearest mode), on the chosen device. */
export function cameraConstraints(
  output: OutputSettings,
  videoDeviceId?: string
): MediaTrackConstraints {
  const video: MediaTrackConstraints = {
    width: { ideal: output.width },
    height: { ideal: output.height },
    frameRate: { ideal: output.fps }
  }
  if (videoDeviceId) video.deviceId = { exact: videoDeviceId }
  return video
}

/**
 * The microphone on the chosen device, with the browser's own processing switched as asked (#20);
 * without `processing` the browser's defaults (all three on).
 */
const micConstraints = (
  audioDeviceId?: string,
  processing?: MicProcessing
): MediaTrackConstraints => ({
  ...(audioDeviceId ? { deviceId: { exact: audioDeviceId } } : {}),
  ...processing
})

export async function openCamera(
  output: OutputSettings,
  videoDeviceId?: string,
  audioDeviceId?: string,
  processing?: MicProcessing
): Promise<MediaStream> {
  return navigator.mediaDevices.getUserMedia({
    video: cameraConstraints(output, videoDeviceId),
    audio: micConstraints(audioDeviceId, processing)
  })
}

/** The camera alone (a scene mixes the microphone on its own, so a screen-only scene still has it). */
export async function openCameraVideo(
  output: OutputSettings,
  videoDeviceId?: string
): Promise<MediaStream> {
  return navigator.mediaDevices.getUserMedia({
    video: cameraConstraints(output, videoDeviceId),
    audio: false
  })
}

export async function openMicrophone(
  audioDeviceId?: string,
  processing?: MicProcessing
): Promise<MediaStream> {
  return navigator.mediaDevices.getUserMedia({
    audio: micConstraints(audioDeviceId, processing),
    video: false
  })
}

/** The processing switches a microphone track has now, as the browser reports them (getSettings). */
export function appliedProcessing(track: MediaStreamTrack): Partial<MicProcessing> {
  const got = track.getSettings() as Partial<Record<keyof MicProcessing, unknown>>
  const out: Partial<MicProcessing> = {}
  for (const k of PROCESSING_KEYS) if (typeof got[k] === 'boolean') out[k] = got[k]
  return out
}

/**
 * Switches a live microphone's processing in place (track.applyConstraints). Browsers may refuse, or
 * resolve without changing anything (Chromium fixes processing when it opens the device): true only
 * when getSettings() then shows every switch as asked; on false the caller opens the microphone again.
 */
export async function applyMicProcessing(
  track: MediaStreamTrack,
  processing: MicProcessing,
  audioDeviceId?: string
): Promise<boolean> {
  try {
    await track.applyConstraints(micConstraints(audioDeviceId, processing))
  } catch {
    return false
  }
  return unapplied(processing, appliedProcessing(track)).length === 0
}

export async function openScreen(output: OutputSettings): Promise<MediaStream> {
  return navigator.mediaDevices.getDisplayMedia({
    // Never bigger than the output: a 4K or Retina screen is scaled down by the capturer, once, instead
    // of every frame being converted (scenes), encoded and sent at four to nine times the pixels.
    video: {
      frameRate: { ideal: output.fps },
      width: { max: output.width },
      height: { max: output.height }
    },
    audio: true
  })
}

/**
 * Whether a failed getDisplayMedia was the creator closing the chooser (nothing to report) rather than
 * a refusal: browsers say NotAllowedError "...by user", Electron's chooser cancelled gives AbortError;
 * an OS refusal (macOS Screen Recording permission) says "...by system" and is reported.
 */
export function isScreenCancel(e: unknown): boolean {
  if (!(e instanceof DOMException)) return false
  if (e.name === 'AbortError') return true
  return e.name === 'NotAllowedError' && !/system/i.test(e.message)
}

export function stopTracks(stream: MediaStream | null): void {
  stream?.getTracks().forEach((t) => t.stop())
}

export async function listDevices(): Promise<{
  video: MediaDeviceInfo[]
  audio: MediaDeviceInfo[]
}> {
  const all = await navigator.mediaDevices.enumerateDevices()
  return {
    video: all.filter((d) => d.kind === 'videoinput'),
    audio: all.filter((d) => d.kind === 'audioinput')
  }
}

export function mediaError(
  e: unknown,
  device: 'camera' | 'microphone' | 'camera or microphone' | 'screen' = 'camera or microphone'
): AppError {
  const name = e instanceof DOMException || e instanceof Error ? e.name : ''
  if (device === 'screen' && name === 'NotAllowedError')
    return {
      code: 'media',
      message: 'The system did not allow Onair to record the screen.',
      hint: 'On macOS: System Settings, Privacy & Security, Screen Recording: allow Onair, then reopen it.'
    }
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return {
        code: 'media',
        message: `Permission to use the ${device} was denied.`,
        hint: 'Allow camera and microphone access for Onair in your system settings, then try again.'
      }
    case 'NotReadableError':
    case 'AbortError':
      return {
        code: 'media',
        message: `The ${device} is busy.`,
        hint: 'Another app is using it. Close that app (or pick another device) and try again.'
      }
    case 'NotFoundError':
    case 'OverconstrainedError':
      return device === 'microphone'
        ? {
            code: 'media',
            message: 'No microphone was found that matches the settings.',
            hint: 'Connect a microphone or pick another one; the scene goes on without it.'
          }
        : {
            code: 'media',
            message: 'No camera was found that matches the settings.',
            hint: 'Connect a camera, pick another device, or use the test pattern.'
          }
    default:
      return {
        code: 'media',
        message: `Capture failed: ${e instanceof Error ? e.message : String(e)}`,
        hint: 'Try another source, or the test pattern.'
      }
  }
}
