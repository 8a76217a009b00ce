// Where the uplink loop closes: the controller's output (a new video bitrate, a keyframe after a drop)
// goes to the encoder through this one interface, which whoever starts the run passes in
// (SupervisorOptions.encoder). The page's WebCodecs encoder is reached by an event (pageEncoder below);
// an encoder main runs itself is called directly.
import type { EncoderTargetEvent } from '../../../../shared/contract'

/** What the uplink loop asks of the encoder it steers. */
export interface EncoderControl {
  /** Encode the video at this bitrate from now on (kbit/s). */
  setBitrate(videoKbps: number): void
  /** Make the next frame a keyframe (media was dropped up to the next one). */
  requestKeyframe(): void
}

/**
 * The page's encoder, reached by the `live:encoder` event (EncoderTargetEvent): each event carries
 * the bitrate to encode at, the keyframe request too (the page sets the rate, then makes the frame).
 */
export function pageEncoder(
  runId: string,
  startKbps: number,
  emit: (ev: EncoderTargetEvent) => void
): EncoderControl {
  let kbps = startKbps
  return {
    setBitrate(videoKbps) {
      kbps = videoKbps
      emit({ runId, videoBitrateKbps: videoKbps, keyframe: false })
    },
    requestKeyframe() {
      emit({ runId, videoBitrateKbps: kbps, keyframe: true })
    }
  }
}
