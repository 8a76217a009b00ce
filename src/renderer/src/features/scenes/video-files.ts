// The picked video files, by source id: each plays in a <video> from a blob: URL (its bytes stay in the
// page, never saved), muted (its sound is for the mixer, not the page's speakers) and looped. The
// compositor draws the element's current frame like a picture.
const videos = new Map<string, { el: HTMLVideoElement; url: string }>()

/** The playing element of a video source, or undefined (not picked since the page opened). */
export const videoOf = (sourceId: string): HTMLVideoElement | undefined => videos.get(sourceId)?.el

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
}
