// The picked video files, by source id: each plays in a <video> from a blob: URL (its bytes stay in the
// page, never saved), muted (its sound is for the mixer, not the page's speakers) and looped. The
// compositor draws the element's current frame like a picture; the mixer takes its sound from the
// element's captureStream(), which carries the sound of a muted element too, in step with the picture
// the element shows (one element plays both, through each loop).
import { Changes } from './changes'

const videos = new Map<string, { el: HTMLVideoElement; url: string; sound?: MediaStream | null }>()
const changes = new Changes()

/** Tells when a video is opened or closed (the mix takes or drops its sound). */
export const onVideosChange = changes.on

/** The playing element of a video source, or undefined (not picked since the page opened). */
export const videoOf = (sourceId: string): HTMLVideoElement | undefined => videos.get(sourceId)?.el

/** A video source's sound as a stream (the element's captureStream), or null: not picked, or silent. */
export function videoSoundOf(sourceId: string): MediaStream | null {
  const v = videos.get(sourceId)
  if (!v) return null
  if (v.sound === undefined) {
    const el = v.el as HTMLVideoElement & { captureStream?: () => MediaStream }
    v.sound = el.captureStream?.() ?? null
    // Its sound track may come a moment after the picture's: the mix looks again then.
    v.sound?.addEventListener('addtrack', () => changes.emit())
  }
  return v.sound?.getAudioTracks().length ? v.sound : null
}

/** Opens a picked file: resolves with its size once the browser can read it, or null if it cannot. */
export async function openVideo(
  sourceId: string,
  file: File
): Promise<{ width: number; height: number } | null> {
  const url = URL.createObjectURL(file)
  const el = document.createElement('video')
  el.muted = true
  el.loop = true
  el.playsInline = true
  el.preload = 'auto'
  el.src = url
  const ok = await new Promise<boolean>((resolve) => {
    el.onloadedmetadata = () => resolve(el.videoWidth > 0 && el.videoHeight > 0)
    el.onerror = () => resolve(false)
  })
  if (!ok) {
    URL.revokeObjectURL(url)
    return null
  }
  closeVideo(sourceId)
  videos.set(sourceId, { el, url })
  void el.play().catch(() => undefined)
  changes.emit()
  return { width: el.videoWidth, height: el.videoHeight }
}

/** Stops a video source's element and frees its bytes. */
export function closeVideo(sourceId: string): void {
  const v = videos.get(sourceId)
  if (!v) return
  v.el.pause()
  v.el.removeAttribute('src')
  URL.revokeObjectURL(v.url)
  videos.delete(sourceId)
  v.sound?.getTracks().forEach((t) => t.stop())
  changes.emit()
}
