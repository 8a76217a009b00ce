// The audio mix: each source (microphone, screen audio, each video file on air) through its own chain
// and gain into one master,
// with a meter (and its clip light) on every channel and on the master. The master's track is the broadcast's audio:
// it exists from the start (silent with no sources), so MediaRecorder always has one audio track and
// adding or muting a source never changes the recorded stream's shape.
// Levels and mutes belong to the scene (shared/scenes.ts): the program applies the scene's on a switch.
// The Camera and Screen sources put their capture's sound through a mix of their own
// (features/live/source-mix.ts), which holds its levels and mutes itself (setLevel).
// A video file's channel is made while a scene on air shows it (setVideos) and goes with it; its
// level, mute (muted until the creator turns it on) and chain belong to its source (VideoSource). An
// added screen's sound (a screen after the first, its share with sound) is such a channel too, its
// level, mute and chain its source's (ScreenSource.sound).
// The microphone has two more stages before its gain (#20): the noise gate (an AudioWorklet running
// gate-dsp.ts, in worklets.ts) and the talk switch (push-to-talk and push-to-mute), a gain of its own so a held key
// never touches the scene's saved mute.
// Each source then has its own chain (#34 §5, shared/audio.ts SourceAudio), saved once for the source:
//   input [-> gate -> talk] -> sync offset (DelayNode) -> gain (dB) -> compressor -> makeup
//     -> limiter -> the scene's volume and mute -> output (-> master) and monitor (-> headphones)
// The compressor is Web Audio's DynamicsCompressorNode (a hard knee; the node's own makeup gain taken
// off again, builtInMakeupDb, so the makeup is only the creator's). The limiter is a look-ahead brick
// wall (an AudioWorklet running limiter-dsp.ts, in worklets.ts with the gate): nothing goes out above its ceiling. Until its worklet
// has loaded (or if it cannot) a DynamicsCompressorNode at 20:1 stands in, which holds a tone 9 dB over
// the ceiling to about 1 dB over it. Each is taken out of the chain while off (each delays the sound a
// few ms: its look-ahead).
import workletsUrl from './worklets.ts?worker&url'
import {
  AUDIO_RANGES,
  DEFAULT_SOURCE_AUDIO,
  builtInMakeupDb,
  dbToLinear,
  type MicProcessing,
  type AudioSourceId,
  type NoiseGateSettings,
  type SourceAudio
} from '../../../../shared/audio'
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
  /** 'mic', 'screen', or a video source's or an added screen source's id. */
  id: string
  /**
   * A source's own channel, a video file's or an added screen's (its level, mute and chain are its
   * source's), or one of the mix's own channels.
   */
  video: boolean
  /** Whose own channel: a video file's or an added screen's (with `video`). */
  kind?: 'video' | 'screen'
  label: string
  /** Whether a track is connected now (the screen share may have no audio). */
  present: boolean
}

interface Channel {
  state: ChannelState
  /** The scene's volume and mute (the fader). */
  gain: GainNode
  analyser: AnalyserNode
  input: MediaStreamAudioSourceNode | null
  /** The source's chain, in order (see the top of the file). */
  delay: DelayNode
  trim: GainNode
  compressor: DynamicsCompressorNode
  makeup: GainNode
  /** The limiter's stand-in until the brick wall (limiterWall) is there. */
  limiter: DynamicsCompressorNode
  limiterTrim: GainNode
  limiterWall: AudioWorkletNode | null
  /** To the master (shut for "monitor only") and to the headphones (open while monitored). */
  output: GainNode
  monitor: GainNode
  audio: SourceAudio
}

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

/** A video file's or an added screen's sound as the mix takes it (from its source). */
export interface VideoSound extends ChannelLevel {
  id: string
  label: string
  audio: SourceAudio
  /** An added screen's share (a video file's when not said). */
  kind?: 'video' | 'screen'
}

/** What the mixer works on: a scene's mix (MixerPanel's sceneMixer), a camera's or a screen's (live). */
export interface MixerHost {
  mix: AudioMix
  /** The sources shown (a camera has no screen audio); all by default. */
  sources?: readonly AudioSourceId[]
  /** A channel's volume or mute. */
  setLevel(ch: ChannelState, patch: Partial<ChannelLevel>): void
  /** A video file's or an added screen's chain (saved with its source). */
  setSourceSound(id: string, audio: SourceAudio): void
}

export class AudioMix {
  readonly ctx: AudioContext
  readonly track: MediaStreamTrack
  private master: GainNode
  private masterAnalyser: AnalyserNode
  private channels: Record<ChannelId, Channel>
  /** The video files' channels, by source id, in the order the scene on air has them. */
  private videos = new Map<string, Channel & { track: MediaStreamTrack | null }>()
  /** The limiters' worklet has loaded: channels made from now on get their brick wall at once. */
  private limiterReady = false
  private buf = new Float32Array(1024)
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
  /** The gate's and the limiters' worklet module (worklets.ts), added once. */
  private readonly worklets: Promise<void>

  constructor() {
    this.ctx = new AudioContext({ latencyHint: 'interactive' })
    this.worklets = this.ctx.audioWorklet.addModule(workletsUrl)
    this.master = this.ctx.createGain()
    this.masterAnalyser = this.analyser()
    const out = this.ctx.createMediaStreamDestination()
    this.master.connect(this.masterAnalyser)
    this.master.connect(out)
    const track = out.stream.getAudioTracks()[0]
    if (!track) throw new Error('This system cannot mix audio (no Web Audio output).')
    this.track = track
    this.channels = {
      mic: this.channel('mic', 'Microphone', false),
      screen: this.channel('screen', 'Screen audio', false)
    }
    this.talk = this.ctx.createGain()
    this.talk.connect(this.channels.mic.delay)
    void this.loadGate()
    void this.loadLimiter()
  }

  /** A channel's nodes, wired from its chain's input (delay) to the master and the monitor. */
  private channel(id: string, label: string, video: boolean): Channel {
    const gain = this.ctx.createGain()
    const analyser = this.analyser()
    const output = this.ctx.createGain()
    const monitor = this.ctx.createGain()
    monitor.gain.value = 0
    gain.connect(analyser)
    gain.connect(output)
    output.connect(this.master)
    gain.connect(monitor)
    monitor.connect(this.ctx.destination)
    const ch: Channel = {
      state: { id, label, video, gain: 1, muted: false, present: false },
      gain,
      analyser,
      input: null,
      delay: this.ctx.createDelay(AUDIO_RANGES.syncOffsetMs.max / 1000 + 0.1),
      trim: this.ctx.createGain(),
      compressor: this.ctx.createDynamicsCompressor(),
      makeup: this.ctx.createGain(),
      limiter: this.ctx.createDynamicsCompressor(),
      limiterTrim: this.ctx.createGain(),
      limiterWall: null,
      output,
      monitor,
      audio: DEFAULT_SOURCE_AUDIO
    }
    ch.delay.connect(ch.trim)
    ch.compressor.connect(ch.makeup)
    ch.limiter.connect(ch.limiterTrim)
    if (this.limiterReady) this.addLimiterWall(ch)
    this.wire(ch)
    return ch
  }

  /** The limiters' worklet, loaded once; until then (or if it cannot load) the stand-in limits. */
  private async loadLimiter(): Promise<void> {
    try {
      await this.worklets
    } catch {
      return // the stand-in stays
    }
    if (this.ctx.state === 'closed') return
    this.limiterReady = true
    for (const ch of this.all()) {
      this.addLimiterWall(ch)
      this.wire(ch)
    }
  }

  private addLimiterWall(ch: Channel): void {
    ch.limiterWall = new AudioWorkletNode(this.ctx, 'onair-limiter', {
      numberOfInputs: 1,
      numberOfOutputs: 1
    })
    this.sendLimiter(ch)
  }

  /** Every channel: the mix's own and the videos'. */
  private all(): Channel[] {
    return [...Object.values(this.channels), ...this.videos.values()]
  }

  /** A channel by id: 'mic', 'screen' or a video source's (undefined: no such video on air). */
  private find(id: string): Channel | undefined {
    return id === 'mic' || id === 'screen' ? this.channels[id] : this.videos.get(id)
  }

  private sendLimiter(ch: Channel): void {
    ch.limiterWall?.port.postMessage(ch.audio.limiter)
  }

  /** The gate's worklet, loaded once; until then (or if it cannot load) the microphone is not gated. */
  private async loadGate(): Promise<void> {
    try {
      await this.worklets
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
    this.connect(this.channels[id], stream)
  }

  private connect(ch: Channel, stream: MediaStream | null): void {
    const id = ch.state.id
    ch.input?.disconnect()
    ch.input = null
    const track = stream?.getAudioTracks()[0]
    if (track && track.readyState === 'live') {
      ch.input = this.ctx.createMediaStreamSource(new MediaStream([track]))
      // The microphone goes through its gate (once loaded) and talk stage; the others to their chain.
      ch.input.connect(id === 'mic' ? (this.gate ?? this.talk) : ch.delay)
    }
    ch.state = { ...ch.state, present: !!ch.input }
    this.emit()
  }

  /** A scene's levels and mutes; only the channels that change are touched. */
  setLevels(mix: SceneMix): void {
    for (const id of MIX_CHANNELS) this.level(this.channels[id], mix[id])
  }

  /** One channel's level and mute (a camera's or a screen's mix, which has no scene to keep them). */
  setLevel(id: ChannelId, level: ChannelLevel): void {
    this.level(this.channels[id], level)
  }

  private level(ch: Channel, level: ChannelLevel): void {
    const gain = Math.min(MAX_GAIN, Math.max(0, level.gain))
    if (ch.state.gain === gain && ch.state.muted === level.muted) return
    ch.state = { ...ch.state, gain, muted: level.muted }
    this.apply(ch)
  }

  /**
   * The video files the scene on air shows, each with its sound (null: not picked yet, or silent),
   * level, mute and chain: a channel is made for each new one, dropped for each gone, and the rest
   * changed in place.
   */
  setVideos(videos: readonly (VideoSound & { stream: MediaStream | null })[]): void {
    const keep = new Set(videos.map((v) => v.id))
    let changed = false
    for (const [id, ch] of this.videos)
      if (!keep.has(id)) {
        this.drop(ch)
        this.videos.delete(id)
        changed = true
      }
    const next = new Map<string, Channel & { track: MediaStreamTrack | null }>()
    for (const v of videos) {
      let ch = this.videos.get(v.id)
      if (!ch) {
        ch = { ...this.channel(v.id, v.label, true), track: null }
        ch.state = { ...ch.state, kind: v.kind ?? 'video' }
        // A new channel starts shut: its level below opens it only when the source is not muted.
        ch.gain.gain.value = 0
        ch.state = { ...ch.state, muted: true, gain: 0 }
        changed = true
      }
      if (ch.state.label !== v.label) ch.state = { ...ch.state, label: v.label }
      // A new sound track (the file picked again, or its track came late) is connected again.
      const track = v.stream?.getAudioTracks().find((t) => t.readyState === 'live') ?? null
      if (ch.track !== track) {
        ch.track = track
        this.connect(ch, track && new MediaStream([track]))
        changed = true
      }
      if (ch.audio !== v.audio) this.chain(ch, v.audio)
      this.level(ch, v)
      next.set(v.id, ch)
    }
    this.videos = next
    if (changed) this.emit()
  }

  /** Disconnects a channel's every node (a video gone from the scene on air). */
  private drop(ch: Channel): void {
    ch.input?.disconnect()
    ch.input = null
    for (const n of [ch.gain, ch.output, ch.monitor, ch.delay, ch.trim, ch.makeup, ch.limiterTrim])
      n.disconnect()
    ch.limiterWall?.disconnect()
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

  /**
   * A source's chain (shared/audio.ts SourceAudio): changed in place while it plays. The compressor
   * and the limiter are put in or taken out of the chain as they are switched on or off.
   */
  setSourceAudio(id: string, audio: SourceAudio): void {
    const ch = this.find(id)
    if (ch) this.chain(ch, audio)
  }

  private chain(ch: Channel, audio: SourceAudio): void {
    const was = ch.audio
    ch.audio = audio
    const t = this.ctx.currentTime
    const glide = (p: AudioParam, v: number): void => {
      p.cancelScheduledValues(t)
      p.setTargetAtTime(v, t, 0.005)
    }
    // A new offset is taken at once (the sound jumps): gliding a delay would bend the pitch.
    ch.delay.delayTime.setValueAtTime(audio.syncOffsetMs / 1000, t)
    glide(ch.trim.gain, dbToLinear(audio.gainDb))
    const c = audio.compressor
    ch.compressor.threshold.setValueAtTime(c.thresholdDb, t)
    ch.compressor.knee.setValueAtTime(0, t)
    ch.compressor.ratio.setValueAtTime(c.ratio, t)
    ch.compressor.attack.setValueAtTime(c.attackMs / 1000, t)
    ch.compressor.release.setValueAtTime(c.releaseMs / 1000, t)
    glide(ch.makeup.gain, dbToLinear(c.makeupDb - builtInMakeupDb(c.thresholdDb, c.ratio)))
    const l = audio.limiter
    ch.limiter.threshold.setValueAtTime(l.ceilingDb, t)
    ch.limiter.knee.setValueAtTime(0, t)
    ch.limiter.ratio.setValueAtTime(20, t)
    ch.limiter.attack.setValueAtTime(0, t)
    ch.limiter.release.setValueAtTime(l.releaseMs / 1000, t)
    ch.limiterTrim.gain.setValueAtTime(dbToLinear(-builtInMakeupDb(l.ceilingDb, 20)), t)
    this.sendLimiter(ch)
    const m = audio.monitoring
    glide(ch.output.gain, m === 'monitor-only' ? 0 : 1)
    glide(ch.monitor.gain, m === 'off' ? 0 : 1)
    if (was.compressor.enabled !== c.enabled || was.limiter.enabled !== l.enabled) this.wire(ch)
    this.emit()
  }

  sourceAudio(id: string): SourceAudio {
    return this.find(id)?.audio ?? DEFAULT_SOURCE_AUDIO
  }

  /** Connects the chain's middle: gain -> [compressor -> makeup] -> [limiter] -> the fader. */
  private wire(ch: Channel): void {
    ch.trim.disconnect()
    ch.makeup.disconnect()
    ch.limiterTrim.disconnect()
    ch.limiterWall?.disconnect()
    let last: AudioNode = ch.trim
    if (ch.audio.compressor.enabled) {
      last.connect(ch.compressor)
      last = ch.makeup
    }
    if (ch.audio.limiter.enabled && ch.limiterWall) {
      last.connect(ch.limiterWall)
      last = ch.limiterWall
    } else if (ch.audio.limiter.enabled) {
      last.connect(ch.limiter)
      last = ch.limiterTrim
    }
    last.connect(ch.gain)
  }

  /**
   * Where monitoring plays: an output device (AudioContext.setSinkId, Chromium 110+), or the system's
   * default with none. Resolves with why it could not, or null.
   */
  async setMonitorDevice(deviceId: string | undefined): Promise<string | null> {
    const ctx = this.ctx as AudioContext & { setSinkId?: (id: string) => Promise<void> }
    if (!ctx.setSinkId)
      return deviceId ? 'This browser plays monitoring on its default output only.' : null
    try {
      await ctx.setSinkId(deviceId ?? '')
      return null
    } catch (e) {
      return `The monitoring output could not be used (${e instanceof Error ? e.message : String(e)}).`
    }
  }

  states(): ChannelState[] {
    return [
      this.channels.mic.state,
      this.channels.screen.state,
      ...[...this.videos.values()].map((c) => c.state)
    ]
  }

  /** The last block's peak (linear) of a channel (after its chain and volume) or of the master. */
  peak(id: string): number {
    const a = id === 'master' ? this.masterAnalyser : this.find(id)?.analyser
    if (!a) return 0
    a.getFloatTimeDomainData(this.buf)
    let p = 0
    for (const s of this.buf) p = Math.max(p, Math.abs(s))
    return p
  }

  private emit(): void {
    this.changes.emit()
  }

  dispose(): void {
    for (const ch of this.all()) {
      ch.input?.disconnect()
      ch.monitor.disconnect()
      ch.limiterWall?.disconnect()
      if (ch.limiterWall) ch.limiterWall.port.onmessage = null
    }
    this.gate?.disconnect()
    if (this.gate) this.gate.port.onmessage = null
    this.track.stop()
    void this.ctx.close()
  }
}
