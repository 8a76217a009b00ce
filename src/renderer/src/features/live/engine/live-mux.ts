// Streamed Matroska from encoded packets, by mediabunny: what the page's own encoder hands main, in the
// shape main already reads from MediaRecorder (unknown-size clusters, written once, never seeked).
// Kept apart from the encoder so a Node test can feed it real packets and check main's MediaBuffer.
import {
  AppendOnlyStreamTarget,
  EncodedAudioPacketSource,
  EncodedPacket,
  EncodedVideoPacketSource,
  MkvOutputFormat,
  Output
} from 'mediabunny'

/**
 * mediabunny opens a cluster at any block while a video keyframe waits in its queue; with no floor,
 * the audio blocks just before each keyframe made clusters of their own (no video in them).
 */
const MIN_CLUSTER_S = 0.1

export interface LiveMux {
  /** Adds one video packet (decode order); `meta` must carry the decoder config on the first. */
  video(packet: EncodedPacket, meta?: EncodedVideoChunkMetadata): Promise<void>
  /** Adds one audio packet; `meta` with the decoder config may come with a packet that is dropped. */
  audio(packet: EncodedPacket, meta?: EncodedAudioChunkMetadata): Promise<void>
  /** Writes what is still queued and resolves once every byte went to `sink`. */
  finish(): Promise<void>
  cancel(): Promise<void>
}

/**
 * Starts a muxer whose bytes go to `sink` in order as they are written. A cluster starts at every
 * video keyframe at least MIN_CLUSTER_S after the last one: main's MediaBuffer restarts ffmpeg and
 * drops media only at clusters that open on a keyframe. mediabunny never cuts a cluster between
 * keyframes, so a cluster is one keyframe interval long (2 s by default), like MediaRecorder's.
 */
export async function startLiveMux(
  tracks: { audio: boolean },
  sink: (bytes: Uint8Array) => void
): Promise<LiveMux> {
  const output = new Output({
    format: new MkvOutputFormat({ appendOnly: true, minimumClusterDuration: MIN_CLUSTER_S }),
    target: new AppendOnlyStreamTarget(
      new WritableStream<Uint8Array>({
        write: (chunk) => sink(chunk)
      })
    )
  })
  const video = new EncodedVideoPacketSource('avc')
  output.addVideoTrack(video)
  const audio = tracks.audio ? new EncodedAudioPacketSource('opus') : undefined
  if (audio) output.addAudioTrack(audio)
  await output.start()
  // The stream starts on the first picture: sound from before it would open a cluster with no video
  // in it, where no decoder (nor main's MediaBuffer) can start.
  let firstVideo: number | undefined
  // Encoders give the decoder config with their first chunk only; it goes with the first one kept.
  let audioMeta: EncodedAudioChunkMetadata | undefined
  let audioStarted = false
  return {
    video: (p, meta) => {
      firstVideo ??= p.timestamp
      return video.add(p, meta)
    },
    audio: (p, meta) => {
      if (meta?.decoderConfig) audioMeta = meta
      if (!audio || firstVideo === undefined || p.timestamp < firstVideo) return Promise.resolve()
      const m = audioStarted ? undefined : audioMeta
      audioStarted = true
      return audio.add(p, m)
    },
    finish: () => output.finalize(),
    cancel: () => output.cancel()
  }
}

/** A WebCodecs chunk as a packet at `timestampUs` (the stream's own clock, from 0). */
export function packetAt(
  chunk: EncodedVideoChunk | EncodedAudioChunk,
  timestampUs: number
): EncodedPacket {
  return EncodedPacket.fromEncodedChunk(chunk).clone({ timestamp: timestampUs / 1e6 })
}
