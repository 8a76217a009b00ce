// Low latency (WebRTC) sends what RTMP sends: the Output's size and frame rate, not the camera's.
// A source of another size (a 640x480 webcam for a 720p Output) has each frame fitted into the
// Output's size, kept in shape with black around (frame-fit.ts, as the page's encoder does for RTMP),
// frames beyond the Output's rate left out, and the fitted frames go out through a generated track
// (Chromium's MediaStreamTrackGenerator): the peer connection sends it and the local copy encodes it.
// A source that has the Output's size already goes out as it is (the sender's maxFramerate holds the
// rate), and so does everything where the browser cannot generate a track (the health strip then
// says the size that is sent).
import type { OutputSettings } from '../../../../../shared/contract'
import { FrameFitter } from './frame-fit'

// Chromium has these on the page (lib.dom does not yet).
declare class MediaStreamTrackProcessor<T> {
  constructor(init: { track: MediaStreamTrack; maxBufferSize?: number })
  readonly readable: ReadableStream<T>
}
declare class MediaStreamTrackGenerator extends MediaStreamTrack {
  constructor(init: { kind: 'video' | 'audio' })
  readonly writable: WritableStream<VideoFrame>
}

export interface OutputStream {
  /** What is sent: the source's own stream, or its sound with the fitted picture. */
  stream: MediaStream
  /** The picture is fitted into the Output's size (the source has another). */
  fitted: boolean
  /** Stops the fitting (the source's own tracks are left alone: the preview shows them). */
  release(): void
}

export function outputStream(source: MediaStream, output: OutputSettings): OutputStream {
  const [video] = source.getVideoTracks()
  const width = output.width & ~1
  const height = output.height & ~1
  const settings = video?.getSettings()
  const canFit =
    'MediaStreamTrackGenerator' in globalThis && 'MediaStreamTrackProcessor' in globalThis
  if (!video || !canFit || (settings?.width === width && settings?.height === height))
    return { stream: source, fitted: false, release: () => {} }
  const input = video.clone()
  const generated = new MediaStreamTrackGenerator({ kind: 'video' })
  void fitFrames(input, generated, { width, height, fps: output.fps })
  return {
    stream: new MediaStream([generated, ...source.getAudioTracks()]),
    fitted: true,
    release: () => {
      input.stop()
      generated.stop()
    }
  }
}

/** Reads the input's frames, fits them, writes them to the generated track, until either ends. */
async function fitFrames(
  input: MediaStreamTrack,
  generated: MediaStreamTrackGenerator,
  size: { width: number; height: number; fps: number }
): Promise<void> {
  const reader = new MediaStreamTrackProcessor<VideoFrame>({ track: input }).readable.getReader()
  const writer = generated.writable.getWriter()
  const fitter = new FrameFitter()
  const step = 1e6 / size.fps
  let next = -Infinity
  for (;;) {
    const r = await reader.read().catch(() => ({ done: true as const, value: undefined }))
    if (r.done) break
    const frame = r.value
    try {
      // Frames beyond the Output's rate are left out, on the frames' own clock.
      if (frame.timestamp < next) continue
      next = Math.max(next + step, frame.timestamp + step / 2)
      const same = frame.displayWidth === size.width && frame.displayHeight === size.height
      const out = same ? frame.clone() : await fitter.fit(frame, size.width, size.height)
      try {
        await writer.write(out)
      } catch {
        break // the generated track was stopped
      } finally {
        out.close()
      }
    } finally {
      frame.close()
    }
  }
  input.stop()
  await writer.close().catch(() => undefined)
}
