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
