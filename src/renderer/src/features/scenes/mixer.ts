// The audio mix: each source (microphone, screen audio) through its own gain into one master, with a
// meter on every channel and a clip light on the master. The master's track is the broadcast's audio:
// it exists from the start (silent with no sources), so MediaRecorder always has one audio track and
// adding or muting a source never changes the recorded stream's shape.
// Levels and mutes belong to the scene (shared/scenes.ts): the program applies the scene's on a switch.
// The microphone has two more stages before its gain (#20): the noise gate (an AudioWorklet running
// gate-dsp.ts) and the talk switch (push-to-talk and push-to-mute), a gain of its own so a held key
// never touches the scene's saved mute.
import gateWorkletUrl from './gate-worklet.ts?worker&url'
import type { MicProcessing, NoiseGateSettings } from '../../../../shared/audio'
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

/** The microphone's own stages, as the mixer shows them. */
export interface MicState {
  gate: NoiseGateSettings & {
    /** The gate lets sound through now (always while it is off). */
    open: boolean
    /** The worklet could not start: the gate is not there, said in words. */
    error?: string
  }
  /** Push-to-talk mode, and the keys held now. */
  pushToTalk: boolean
  talkHeld: boolean
  muteHeld: boolean
  /** Whether the talk stage lets the microphone through now. */
  talking: boolean
  /** What the browser applied (track.getSettings()), once read. */
  applied: Partial<MicProcessing> | null
}

export class AudioMix {
  readonly ctx: AudioContext
  readonly track: MediaStreamTrack
  private master: GainNode
  private masterAnalyser: AnalyserNode
  private channels: Record<ChannelId, Channel>
  private buf = new Float32Array(1024)
  private clipAt = -Infinity
  private changes = new Changes()
  /** The microphone's gate (null until its worklet has loaded, or when it cannot) and talk stage. */
  private gate: AudioWorkletNode | null = null
  private talk: GainNode
  private mic: MicState = {
    gate: { enabled: false, thresholdDb: -50, open: true },
    pushToTalk: false,
    talkHeld: false,
    muteHeld: false,
    talking: true,
    applied: null
  }
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
    this.talk = this.ctx.createGain()
    this.talk.connect(this.channels.mic.gain)
    void this.loadGate()
  }

  /** The gate's worklet, loaded once; until then (or if it cannot load) the microphone is not gated. */
  private async loadGate(): Promise<void> {
    try {
      await this.ctx.audioWorklet.addModule(gateWorkletUrl)
      if (this.ctx.state === 'closed') return
      const node = new AudioWorkletNode(this.ctx, 'onair-noise-gate', {
        numberOfInputs: 1,
        numberOfOutputs: 1,
        channelCount: 1,
        channelCountMode: 'explicit'
      })
      node.port.onmessage = (e: MessageEvent<{ open: boolean }>) => {
        this.mic = { ...this.mic, gate: { ...this.mic.gate, open: e.data.open } }
        this.emit()
      }
      node.connect(this.talk)
      this.gate = node
      this.sendGate()
      // The microphone connected before the worklet was there now goes through it.
      const input = this.channels.mic.input
      if (input) {
        input.disconnect()
        input.connect(node)
      }
    } catch (e) {
      this.mic = {
        ...this.mic,
        gate: {
          ...this.mic.gate,
          open: true,
          error: `The noise gate could not start (${e instanceof Error ? e.message : String(e)}).`
        }
      }
      this.emit()
    }
  }

  private sendGate(): void {
    const { enabled, thresholdDb } = this.mic.gate
    this.gate?.port.postMessage({ enabled, thresholdDb })
  }

  /** The noise gate's switch and threshold (dBFS, compared before the channel's volume). */
  setGate(gate: NoiseGateSettings): void {
    const g = this.mic.gate
    if (g.enabled === gate.enabled && g.thresholdDb === gate.thresholdDb) return
    this.mic = {
      ...this.mic,
      gate: { ...g, ...gate, open: gate.enabled ? g.open : true }
    }
    this.sendGate()
    this.emit()
  }

  /**
   * Push-to-talk (the mode, and whether its key is held) and push-to-mute (held): the talk stage opens
   * when not in push-to-talk mode or its key is held, and no push-to-mute key is held.
   */
  setTalk(talk: Partial<Pick<MicState, 'pushToTalk' | 'talkHeld' | 'muteHeld'>>): void {
    const next = { ...this.mic, ...talk }
    const talking = (!next.pushToTalk || next.talkHeld) && !next.muteHeld
    if (
      next.pushToTalk === this.mic.pushToTalk &&
      next.talkHeld === this.mic.talkHeld &&
      next.muteHeld === this.mic.muteHeld
    )
      return
    this.mic = { ...next, talking }
    const t = this.ctx.currentTime
    this.talk.gain.cancelScheduledValues(t)
    this.talk.gain.setTargetAtTime(talking ? 1 : 0, t, 0.005)
    this.emit()
  }

  /** What the browser applied to the microphone (track.getSettings()), for the mixer to show. */
  setApplied(applied: Partial<MicProcessing> | null): void {
    this.mic = { ...this.mic, applied }
    this.emit()
  }

  micState(): MicState {
    return this.mic
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
      // The microphone goes through its gate (once loaded) and talk stage; the screen straight on.
      ch.input.connect(id === 'mic' ? (this.gate ?? this.talk) : ch.gain)
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
    this.gate?.disconnect()
    if (this.gate) this.gate.port.onmessage = null
    this.track.stop()
    void this.ctx.close()
  }
}

/** A level 0..1 (linear) on a -60..0 dBFS scale, so speech sits mid-meter. */
export function meterLevel(linear: number): number {
  const db = linear > 0 ? 20 * Math.log10(linear) : -100
  return Math.min(1, Math.max(0, (db + 60) / 60))
}
