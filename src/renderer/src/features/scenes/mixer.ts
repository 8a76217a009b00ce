// The audio mix: each source (microphone, screen audio) through its own gain into one master, with a
// meter on every channel and a clip light on the master. The master's track is the broadcast's audio:
// it exists from the start (silent with no sources), so MediaRecorder always has one audio track and
// adding or muting a source never changes the recorded stream's shape.
// Levels and mutes belong to the scene (shared/scenes.ts): the program applies the scene's on a switch.
import {
  MAX_GAIN,
  MIX_CHANNELS,
  type ChannelLevel,
  type MixChannelId,
  type SceneMix
} from '../../../../shared/scenes'
import { Changes } from './changes'

export type ChannelId = MixChannelId

export interface ChannelState extends ChannelLevel {
  id: ChannelId
  label: string
  /** Whether a track is connected now (the screen share may have no audio). */
  present: boolean
}

export interface Levels {
  /** Peak level per channel and for the master, 0..1 (linear, after gain and mute). */
  channels: Record<ChannelId, number>
  master: number
  /** The master reached full scale within the last 1.5 s. */
  clipping: boolean
}

interface Channel {
  state: ChannelState
  gain: GainNode
  analyser: AnalyserNode
  input: MediaStreamAudioSourceNode | null
}

const CLIP_LEVEL = 0.99
const CLIP_HOLD_MS = 1500

export class AudioMix {
  readonly ctx: AudioContext
  readonly track: MediaStreamTrack
  private master: GainNode
  private masterAnalyser: AnalyserNode
  private channels: Record<ChannelId, Channel>
  private buf = new Float32Array(1024)
  private clipAt = -Infinity
  private changes = new Changes()
  /** Tells when to read it again (a channel's gain, mute or input). */
  readonly onChange = this.changes.on

  constructor() {
    this.ctx = new AudioContext({ latencyHint: 'interactive' })
    this.master = this.ctx.createGain()
    this.masterAnalyser = this.analyser()
    const out = this.ctx.createMediaStreamDestination()
    this.master.connect(this.masterAnalyser)
    this.master.connect(out)
    const track = out.stream.getAudioTracks()[0]
    if (!track) throw new Error('This system cannot mix audio (no Web Audio output).')
    this.track = track
    const channel = (id: ChannelId, label: string): Channel => {
      const gain = this.ctx.createGain()
      const analyser = this.analyser()
      gain.connect(analyser)
      gain.connect(this.master)
      return {
        state: { id, label, gain: 1, muted: false, present: false },
        gain,
        analyser,
        input: null
      }
    }
    this.channels = { mic: channel('mic', 'Microphone'), screen: channel('screen', 'Screen audio') }
  }

  private analyser(): AnalyserNode {
    const a = this.ctx.createAnalyser()
    a.fftSize = 1024
    return a
  }

  /** Browsers start audio only after a user gesture; call from a click (Go live, a scene button). */
  resume(): void {
    if (this.ctx.state === 'suspended') void this.ctx.resume()
  }

  /** Connects a stream's first audio track to a channel (or disconnects it with null). */
  setInput(id: ChannelId, stream: MediaStream | null): void {
    const ch = this.channels[id]
    ch.input?.disconnect()
    ch.input = null
    const track = stream?.getAudioTracks()[0]
    if (track && track.readyState === 'live') {
      ch.input = this.ctx.createMediaStreamSource(new MediaStream([track]))
      ch.input.connect(ch.gain)
    }
    ch.state = { ...ch.state, present: !!ch.input }
    this.emit()
  }

  /** A scene's levels and mutes; only the channels that change are touched. */
  setLevels(mix: SceneMix): void {
    for (const id of MIX_CHANNELS) {
      const ch = this.channels[id]
      const gain = Math.min(MAX_GAIN, Math.max(0, mix[id].gain))
      if (ch.state.gain === gain && ch.state.muted === mix[id].muted) continue
      ch.state = { ...ch.state, gain, muted: mix[id].muted }
      this.apply(ch)
    }
  }

  // A short exponential approach (setTargetAtTime, time constant 5 ms: within 1 % of the target after
  // about 23 ms), not a step: a step clicks, and this is still heard as instant.
  private apply(ch: Channel): void {
    const target = ch.state.muted ? 0 : ch.state.gain
    const t = this.ctx.currentTime
    ch.gain.gain.cancelScheduledValues(t)
    ch.gain.gain.setTargetAtTime(target, t, 0.005)
    this.emit()
  }

  states(): ChannelState[] {
    return [this.channels.mic.state, this.channels.screen.state]
  }

  levels(now = performance.now()): Levels {
    const peak = (a: AnalyserNode): number => {
      a.getFloatTimeDomainData(this.buf)
      let p = 0
      for (const s of this.buf) p = Math.max(p, Math.abs(s))
      return p
    }
    const master = peak(this.masterAnalyser)
    if (master >= CLIP_LEVEL) this.clipAt = now
    return {
      channels: {
        mic: peak(this.channels.mic.analyser),
        screen: peak(this.channels.screen.analyser)
      },
      master,
      clipping: now - this.clipAt < CLIP_HOLD_MS
    }
  }

  private emit(): void {
    this.changes.emit()
  }

  dispose(): void {
    for (const ch of Object.values(this.channels)) ch.input?.disconnect()
    this.track.stop()
    void this.ctx.close()
  }
}

/** A level 0..1 (linear) on a -60..0 dBFS scale, so speech sits mid-meter. */
export function meterLevel(linear: number): number {
  const db = linear > 0 ? 20 * Math.log10(linear) : -100
  return Math.min(1, Math.max(0, (db + 60) / 60))
}
