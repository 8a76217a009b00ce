// A scene's frames handed to the encoder as the compositor draws them, instead of read back from the
// canvas's capture track. Through the track, each frame went the canvas's capture (at the page's next
// paint), the track, and the track reader's task on this thread: in studio mode's transition bench
// on the 2-core machine the frame with the new scene reached the encoder 18-85 ms after it was drawn
// (median 36, six clicks, stamped on 28 Nov; 8 ms for a bare canvas on an idle page), and every scene
// change reached the ingest that much later. Handed over here, the frame drawn is encoded in the same
// task (8-15 ms after the click, against 38-119 ms before). The track stays for everything else that
// shows or sends the program (the preview, the monitor, WebRTC, Onair's encoder).
//
// The compositor offers `FrameTap` (program.ts passes it with the capture); the pushers read from it
// with readTapped as they read a track with readTrack (track-reader.ts): one frame handled at a time,
// every frame closed, used or not.

/** Subscribes `each` to every frame drawn from now on (`each` owns the frame); returns the unsubscribe. */
export type FrameTap = (each: (frame: VideoFrame) => void) => () => void

export interface TappedReading {
  /** Ends when `stop` is called and the frame in hand, if any, is handled. */
  loop: Promise<void>
  /** No more frames: the one waiting is closed unread. */
  stop(): void
}

/**
 * Reads the tap's frames one at a time (`each` is awaited, then the frame closed). A frame drawn
 * while the last is still in hand waits; a newer one replaces it, closed unread: as a track reader
 * drops a frame it came too late for, a live encoder takes the newest picture, never a queue.
 * `onSkip` counts those.
 */
export function readTapped(
  tap: FrameTap,
  each: (frame: VideoFrame) => void | Promise<void>,
  onError: (e: unknown) => void,
  onSkip: () => void = () => {}
): TappedReading {
  let waiting: VideoFrame | null = null
  let busy = false
  let stopped = false
  let ended: () => void = () => {}
  const loop = new Promise<void>((resolve) => (ended = resolve))
  const handle = async (frame: VideoFrame): Promise<void> => {
    busy = true
    for (let f: VideoFrame | null = frame; f; f = waiting, waiting = null) {
      try {
        await each(f)
      } catch (e) {
        onError(e)
      } finally {
        f.close()
      }
      if (stopped) break
    }
    busy = false
    if (stopped) ended()
  }
  const untap = tap((frame) => {
    if (stopped) return frame.close()
    if (!busy) return void handle(frame)
    if (waiting) {
      waiting.close()
      onSkip()
    }
    waiting = frame
  })
  return {
    loop,
    stop: () => {
      if (stopped) return
      stopped = true
      untap()
      waiting?.close()
      waiting = null
      if (!busy) ended()
    }
  }
}
