// The microphone's own settings (#20): the browser's processing switches (asked for as getUserMedia
// constraints), the mixer's noise gate and push-to-talk. They belong to the microphone, not to a
// scene, so they are kept once in the settings (DeviceSettings.mic). No DOM, no Node.

/** getUserMedia's audio processing constraints, by the names the browser uses. */
export interface MicProcessing {
  noiseSuppression: boolean
  echoCancellation: boolean
  autoGainControl: boolean
}
export const PROCESSING_KEYS = ['noiseSuppression', 'echoCancellation', 'autoGainControl'] as const
export const PROCESSING_LABELS: Record<keyof MicProcessing, string> = {
  noiseSuppression: 'Noise suppression',
  echoCancellation: 'Echo cancellation',
  autoGainControl: 'Automatic gain'
}

export interface NoiseGateSettings {
  enabled: boolean
  /** The level (dBFS, before the channel's volume) below which the microphone is shut. */
  thresholdDb: number
}

export interface MicSettings {
  processing: MicProcessing
  gate: NoiseGateSettings
  /** The microphone is open only while the push-to-talk key is held. */
  pushToTalk: boolean
}

export const GATE_DB = { min: -80, max: -10 } as const

/** What browsers do when asked nothing (all three on), no gate, always open. */
export const DEFAULT_MIC: MicSettings = {
  processing: { noiseSuppression: true, echoCancellation: true, autoGainControl: true },
  gate: { enabled: false, thresholdDb: -50 },
  pushToTalk: false
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null
const bool = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback)

/** Saved microphone settings, cleaned: each field that does not fit gets its default. */
export function readMic(saved: unknown): MicSettings {
  if (!isObj(saved)) return DEFAULT_MIC
  const p = isObj(saved.processing) ? saved.processing : {}
  const g = isObj(saved.gate) ? saved.gate : {}
  const t = g.thresholdDb
  return {
    processing: {
      noiseSuppression: bool(p.noiseSuppression, DEFAULT_MIC.processing.noiseSuppression),
      echoCancellation: bool(p.echoCancellation, DEFAULT_MIC.processing.echoCancellation),
      autoGainControl: bool(p.autoGainControl, DEFAULT_MIC.processing.autoGainControl)
    },
    gate: {
      enabled: bool(g.enabled, DEFAULT_MIC.gate.enabled),
      thresholdDb:
        typeof t === 'number' && Number.isFinite(t)
          ? Math.min(GATE_DB.max, Math.max(GATE_DB.min, Math.round(t)))
          : DEFAULT_MIC.gate.thresholdDb
    },
    pushToTalk: bool(saved.pushToTalk, DEFAULT_MIC.pushToTalk)
  }
}

/** Which asked-for switches the browser did not apply, from track.getSettings(). */
export function unapplied(
  asked: MicProcessing,
  applied: Partial<Record<keyof MicProcessing, unknown>>
): (keyof MicProcessing)[] {
  return PROCESSING_KEYS.filter((k) => typeof applied[k] === 'boolean' && applied[k] !== asked[k])
}

export const dbToLinear = (db: number): number => Math.pow(10, db / 20)

// ---- each source's chain (#34 §5), as OBS's filters and Advanced Audio Properties ------------------
// Every source the program mixes (the microphone, the screen's sound) has its own chain before the
// scene's volume and mute: a gain in dB, a compressor, a limiter, a sync offset, and monitoring. They
// belong to the source, not to a scene, so they are kept once in the settings (DeviceSettings.audio).

/** The sources the program mixes (the mixer's channels, shared/scenes.ts MIX_CHANNELS). */
export const AUDIO_SOURCES = ['mic', 'screen'] as const
export type AudioSourceId = (typeof AUDIO_SOURCES)[number]
export const AUDIO_SOURCE_LABELS: Record<AudioSourceId, string> = {
  mic: 'Microphone',
  screen: 'Screen audio'
}

/** Hearing a source in the headphones (OBS's Audio Monitoring). */
export const MONITORING = ['off', 'monitor-only', 'monitor-and-output'] as const
export type Monitoring = (typeof MONITORING)[number]
export const MONITORING_LABELS: Record<Monitoring, string> = {
  off: 'Monitor off',
  'monitor-only': 'Monitor only (mute output)',
  'monitor-and-output': 'Monitor and output'
}

export interface CompressorSettings {
  enabled: boolean
  /** dBFS above which the level is reduced by `ratio`. */
  thresholdDb: number
  ratio: number
  attackMs: number
  releaseMs: number
  /** A gain after the compressor (dB), to bring the reduced level back up. */
  makeupDb: number
}

export interface LimiterSettings {
  enabled: boolean
  /** The level (dBFS) the source does not go above. */
  ceilingDb: number
  releaseMs: number
}

export interface SourceAudio {
  /** A gain before the compressor (dB), as OBS's Gain filter. */
  gainDb: number
  compressor: CompressorSettings
  limiter: LimiterSettings
  /**
   * Delays the source's sound (ms), as OBS's Sync Offset, to meet a picture that comes later (a camera
   * slower than its microphone). Never negative: sound cannot be played before it is captured, and
   * the picture is not held back; to bring a sound earlier, delay the other sources instead.
   */
  syncOffsetMs: number
  monitoring: Monitoring
}

/** A channel's volume and mute (the mixer's fader and Mute). */
export interface ChannelLevel {
  /** Linear gain, 0..MAX_GAIN (1 = unchanged). */
  gain: number
  muted: boolean
}
export const MAX_GAIN = 2
export const DEFAULT_LEVEL: ChannelLevel = { gain: 1, muted: false }

export interface AudioSettings {
  sources: Record<AudioSourceId, SourceAudio>
  /**
   * The volume and mute of the Camera and Screen sources' one channel (the camera's microphone, the
   * screen's sound), as left in the mixer or with Mute mic; back when the source opens again. A scene
   * keeps its own in its mix (shared/scenes.ts). None saved: 100 % and unmuted.
   */
  levels?: Partial<Record<AudioSourceId, ChannelLevel>>
  /** Where monitoring plays (an audiooutput device id); none: the system's default output. */
  monitorDeviceId?: string
}

/** Each setting's range, as OBS's (the compressor's ratio and times as far as Web Audio's go). */
export const AUDIO_RANGES = {
  gainDb: { min: -30, max: 30 },
  thresholdDb: { min: -60, max: 0 },
  ratio: { min: 1, max: 20 },
  attackMs: { min: 0, max: 1000 },
  releaseMs: { min: 0, max: 1000 },
  makeupDb: { min: 0, max: 30 },
  ceilingDb: { min: -30, max: 0 },
  syncOffsetMs: { min: 0, max: 2000 }
} as const

/** Unity gain, compressor and limiter off (OBS's Compressor and Limiter defaults once on), no offset. */
export const DEFAULT_SOURCE_AUDIO: SourceAudio = {
  gainDb: 0,
  compressor: {
    enabled: false,
    thresholdDb: -18,
    ratio: 10,
    attackMs: 6,
    releaseMs: 60,
    makeupDb: 0
  },
  limiter: { enabled: false, ceilingDb: -1, releaseMs: 60 },
  syncOffsetMs: 0,
  monitoring: 'off'
}

export const DEFAULT_AUDIO: AudioSettings = {
  sources: { mic: DEFAULT_SOURCE_AUDIO, screen: DEFAULT_SOURCE_AUDIO }
}

/** A number in its range (rounded to `step`), or the fallback when it is not a finite number. */
function inRange(
  v: unknown,
  range: { min: number; max: number },
  fallback: number,
  step = 0.1
): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return fallback
  const r = Math.round(v / step) * step
  return Math.min(range.max, Math.max(range.min, Math.round(r * 1000) / 1000))
}

/** One source's saved chain, cleaned (the defaults for nothing saved). */
export function readSourceAudio(saved: unknown): SourceAudio {
  const d = DEFAULT_SOURCE_AUDIO
  if (!isObj(saved)) return d
  const c = isObj(saved.compressor) ? saved.compressor : {}
  const l = isObj(saved.limiter) ? saved.limiter : {}
  const R = AUDIO_RANGES
  return {
    gainDb: inRange(saved.gainDb, R.gainDb, d.gainDb),
    compressor: {
      enabled: bool(c.enabled, d.compressor.enabled),
      thresholdDb: inRange(c.thresholdDb, R.thresholdDb, d.compressor.thresholdDb),
      ratio: inRange(c.ratio, R.ratio, d.compressor.ratio),
      attackMs: inRange(c.attackMs, R.attackMs, d.compressor.attackMs, 1),
      releaseMs: inRange(c.releaseMs, R.releaseMs, d.compressor.releaseMs, 1),
      makeupDb: inRange(c.makeupDb, R.makeupDb, d.compressor.makeupDb)
    },
    limiter: {
      enabled: bool(l.enabled, d.limiter.enabled),
      ceilingDb: inRange(l.ceilingDb, R.ceilingDb, d.limiter.ceilingDb),
      releaseMs: inRange(l.releaseMs, R.releaseMs, d.limiter.releaseMs, 1)
    },
    syncOffsetMs: inRange(saved.syncOffsetMs, R.syncOffsetMs, d.syncOffsetMs, 1),
    monitoring: (MONITORING as readonly unknown[]).includes(saved.monitoring)
      ? (saved.monitoring as Monitoring)
      : d.monitoring
  }
}

/** A saved volume and mute, cleaned: a gain that is not a number in 0..MAX_GAIN is the fallback's. */
export function readLevel(saved: unknown, fallback: ChannelLevel): ChannelLevel {
  if (!isObj(saved)) return fallback
  const g = saved.gain
  const fits = typeof g === 'number' && Number.isFinite(g) && g >= 0 && g <= MAX_GAIN
  return { gain: fits ? g : fallback.gain, muted: saved.muted === true }
}

/**
 * Saved audio settings, cleaned: settings saved before sources had chains (no `audio`) get the
 * defaults, which sound as before (0 dB, nothing on, no offset, not monitored); each field that does
 * not fit gets its default, a number out of range its nearest bound.
 */
export function readAudio(saved: unknown): AudioSettings {
  if (!isObj(saved)) return DEFAULT_AUDIO
  const s = isObj(saved.sources) ? saved.sources : {}
  const device = saved.monitorDeviceId
  const l = isObj(saved.levels) ? saved.levels : {}
  const levels = Object.fromEntries(
    AUDIO_SOURCES.flatMap((id) => (isObj(l[id]) ? [[id, readLevel(l[id], DEFAULT_LEVEL)]] : []))
  )
  return {
    sources: { mic: readSourceAudio(s.mic), screen: readSourceAudio(s.screen) },
    ...(Object.keys(levels).length > 0 ? { levels } : {}),
    ...(typeof device === 'string' && device && device.length <= 500
      ? { monitorDeviceId: device }
      : {})
  }
}

/** One source's settings changed (the others kept). */
export function setSourceAudio(
  audio: AudioSettings,
  id: AudioSourceId,
  next: SourceAudio
): AudioSettings {
  return { ...audio, sources: { ...audio.sources, [id]: next } }
}

/** The Camera's or the Screen source's volume and mute changed (the other's kept). */
export function setSourceLevel(
  audio: AudioSettings,
  id: AudioSourceId,
  level: ChannelLevel
): AudioSettings {
  return { ...audio, levels: { ...audio.levels, [id]: { gain: level.gain, muted: level.muted } } }
}

/** Why a sync offset typed in cannot be used, in the creator's words; null when it can. */
export function syncOffsetProblem(ms: number): string | null {
  if (!Number.isFinite(ms)) return 'Type a number of milliseconds.'
  if (ms < 0)
    return (
      'A negative offset would play the sound before it is captured. Delay the other sources ' +
      'instead (or the late picture is the one to fix).'
    )
  if (ms > AUDIO_RANGES.syncOffsetMs.max) return `At most ${AUDIO_RANGES.syncOffsetMs.max} ms.`
  return null
}

export const linearToDb = (v: number): number => (v > 0 ? 20 * Math.log10(v) : -Infinity)

/**
 * The gain (dB) Web Audio's DynamicsCompressorNode adds by itself after compressing, for a hard knee:
 * the spec's makeup gain, (1 / curve(1.0))^0.6. The mixer takes it off again, so a limiter's ceiling
 * is its ceiling and a compressor's makeup is only the creator's.
 */
export function builtInMakeupDb(thresholdDb: number, ratio: number): number {
  return 0.6 * -thresholdDb * (1 - 1 / ratio)
}

// ---- meters (one for every level shown) ------------------------------------------------------------
/** The meters' scale (dBFS); a peak at or above CLIP_DB lights the clip light until it is cleared. */
export const METER_FLOOR_DB = -60
export const CLIP_DB = -0.1
export const PEAK_HOLD_MS = 1500
/** How fast a held peak falls once its hold is over (dB per second). */
export const PEAK_FALL_DB_PER_S = 20

export interface MeterReading {
  /** The block's peak (dBFS, METER_FLOOR_DB at silence). */
  db: number
  /** The held peak: the highest for PEAK_HOLD_MS, then falling. */
  holdDb: number
  /** Reached CLIP_DB since it was last cleared. */
  clipped: boolean
}

/** A meter's peak hold and clip light, fed each frame's peak (linear) and the time (ms). */
export class PeakMeter {
  private hold = METER_FLOOR_DB
  private holdAt = -Infinity
  private clip = false

  read(linearPeak: number, now: number): MeterReading {
    const db = Math.max(METER_FLOOR_DB, linearToDb(linearPeak))
    const since = now - this.holdAt
    const fallen =
      since <= PEAK_HOLD_MS
        ? this.hold
        : this.hold - ((since - PEAK_HOLD_MS) / 1000) * PEAK_FALL_DB_PER_S
    if (db >= fallen) {
      this.hold = db
      this.holdAt = now
    }
    if (db >= CLIP_DB) this.clip = true
    return { db, holdDb: Math.max(db, fallen, METER_FLOOR_DB), clipped: this.clip }
  }

  clear(): void {
    this.clip = false
  }
}

/** A dBFS level's place on a meter, 0..1 (METER_FLOOR_DB..0). */
export const meterFraction = (db: number): number =>
  Math.min(1, Math.max(0, (db - METER_FLOOR_DB) / -METER_FLOOR_DB))
