// Each source's audio chain in the saved settings (#34 §5: shared/audio.ts readAudio, the saveSettings
// schema in main/core/contract-schema.ts), and the meters' peak hold and clip light (PeakMeter).
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  CLIP_DB,
  DEFAULT_AUDIO,
  DEFAULT_MIC,
  DEFAULT_SOURCE_AUDIO,
  PEAK_HOLD_MS,
  PeakMeter,
  builtInMakeupDb,
  readAudio,
  readMic,
  setSourceAudio,
  setSourceLevel,
  syncOffsetProblem,
  type AudioSettings
} from '../../../src/shared/audio'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'
import { SettingsStore } from '../../../src/main/core/settings-store'

const save = (devices: unknown) => CALL_ARGS.saveSettings.safeParse([devices])
const dbToLin = (db: number): number => Math.pow(10, db / 20)

describe('audio settings', () => {
  it('settings saved before sources had chains load unchanged, and the chains get their defaults', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-audio-'))
    const old = {
      sourceKind: 'scene',
      mic: { ...DEFAULT_MIC, pushToTalk: true },
      output: { width: 1280, height: 720 }
    }
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify({ version: 1, connections: [], activeId: 'local', devices: old })
    )
    const devices = new SettingsStore(dir).get().devices
    expect(devices).toEqual(old)
    expect(save(devices).success).toBe(true)
    expect(readMic(devices.mic).pushToTalk).toBe(true)
    // No chain saved: each source as it sounded before (0 dB, nothing on, no offset, not monitored).
    expect(readAudio(devices.audio)).toEqual(DEFAULT_AUDIO)
    expect(DEFAULT_SOURCE_AUDIO).toMatchObject({
      gainDb: 0,
      syncOffsetMs: 0,
      monitoring: 'off',
      compressor: { enabled: false },
      limiter: { enabled: false, ceilingDb: -1 }
    })
  })

  it('keeps what fits, bounds numbers to their range, and gives the default for the rest', () => {
    const a = readAudio({
      sources: {
        mic: {
          gainDb: 45,
          compressor: { enabled: true, ratio: 4, attackMs: 'fast' },
          limiter: { enabled: true, ceilingDb: -3 },
          syncOffsetMs: -120,
          monitoring: 'monitor-only'
        },
        screen: { monitoring: 'loud' }
      },
      monitorDeviceId: 'headphones'
    })
    expect(a.sources.mic.gainDb).toBe(30)
    expect(a.sources.mic.compressor).toEqual({
      ...DEFAULT_SOURCE_AUDIO.compressor,
      enabled: true,
      ratio: 4
    })
    expect(a.sources.mic.limiter).toEqual({ enabled: true, ceilingDb: -3, releaseMs: 60 })
    expect(a.sources.mic.syncOffsetMs).toBe(0)
    expect(a.sources.mic.monitoring).toBe('monitor-only')
    expect(a.sources.screen).toEqual(DEFAULT_SOURCE_AUDIO)
    expect(a.monitorDeviceId).toBe('headphones')
    // What readAudio gives passes the door, and survives a save and a read unchanged.
    expect(save({ audio: a }).success).toBe(true)
    expect(readAudio(JSON.parse(JSON.stringify(a)))).toEqual(a)
  })

  it('is checked at the door: out of range, a negative offset, an unknown field or source are refused', () => {
    const withMic = (patch: object): AudioSettings =>
      setSourceAudio(DEFAULT_AUDIO, 'mic', { ...DEFAULT_SOURCE_AUDIO, ...patch })
    expect(save({ audio: withMic({ syncOffsetMs: 200, gainDb: -12.5 }) }).success).toBe(true)
    const negative = save({ audio: withMic({ syncOffsetMs: -50 }) })
    expect(negative.success).toBe(false)
    expect(JSON.stringify(negative.error?.issues)).toContain('cannot be negative')
    expect(save({ audio: withMic({ gainDb: 31 }) }).success).toBe(false)
    expect(save({ audio: withMic({ monitoring: 'loud' }) }).success).toBe(false)
    expect(
      save({ audio: withMic({ limiter: { ...DEFAULT_SOURCE_AUDIO.limiter, ceilingDb: 2 } }) })
        .success
    ).toBe(false)
    const extraSource = { sources: { ...DEFAULT_AUDIO.sources, camera: DEFAULT_SOURCE_AUDIO } }
    expect(save({ audio: extraSource }).success).toBe(false)
  })

  it("keeps the Camera and Screen sources' volume and mute, per source, through the schema and back", () => {
    let a = setSourceLevel(DEFAULT_AUDIO, 'mic', { gain: 0.5, muted: true })
    a = setSourceLevel(a, 'screen', { gain: 1.5, muted: false })
    expect(a.levels).toEqual({
      mic: { gain: 0.5, muted: true },
      screen: { gain: 1.5, muted: false }
    })
    const checked = save({ audio: a })
    expect(checked.success).toBe(true)
    expect(readAudio(JSON.parse(JSON.stringify(checked.data![0].audio)))).toEqual(a)
    // None saved: none read (100 % and unmuted); a broken one gets the default, a bad gain too.
    expect(readAudio({ sources: {} }).levels).toBeUndefined()
    expect(readAudio({ levels: { mic: { gain: 7, muted: true }, screen: 'x' } }).levels).toEqual({
      mic: { gain: 1, muted: true }
    })
    // At the door: a gain over the most, an unknown channel.
    expect(save({ audio: { ...a, levels: { mic: { gain: 3, muted: false } } } }).success).toBe(
      false
    )
    expect(save({ audio: { ...a, levels: { cam: { gain: 1, muted: false } } } }).success).toBe(
      false
    )
  })

  it('says why a negative or too long sync offset cannot be used', () => {
    expect(syncOffsetProblem(200)).toBeNull()
    expect(syncOffsetProblem(-10)).toMatch(/before it is captured/)
    expect(syncOffsetProblem(5000)).toMatch(/At most 2000 ms/)
  })

  it("takes off the compressor's own makeup: none at a 0 dB threshold or a 1:1 ratio", () => {
    expect(builtInMakeupDb(0, 20)).toBeCloseTo(0)
    expect(builtInMakeupDb(-30, 1)).toBeCloseTo(0)
    expect(builtInMakeupDb(-1, 20)).toBeCloseTo(0.57)
  })
})

describe('a meter', () => {
  it('holds its peak for the hold time, then lets it fall; lights the clip light until cleared', () => {
    const m = new PeakMeter()
    expect(m.read(dbToLin(-6), 0)).toMatchObject({ db: expect.closeTo(-6, 3), clipped: false })
    // Quieter: the peak is held...
    expect(m.read(dbToLin(-30), PEAK_HOLD_MS - 100).holdDb).toBeCloseTo(-6, 3)
    // ...then falls (20 dB/s: 500 ms after the hold, 10 dB lower), never below the level itself.
    expect(m.read(dbToLin(-30), PEAK_HOLD_MS + 500).holdDb).toBeCloseTo(-16, 3)
    expect(m.read(dbToLin(-30), PEAK_HOLD_MS + 5000).holdDb).toBeCloseTo(-30, 3)
    expect(m.read(0, PEAK_HOLD_MS + 6000).db).toBe(-60)
    // Full scale lights the clip light; it stays lit through silence until cleared.
    expect(m.read(dbToLin(CLIP_DB), 10_000).clipped).toBe(true)
    expect(m.read(0, 60_000).clipped).toBe(true)
    m.clear()
    expect(m.read(dbToLin(-1), 60_100).clipped).toBe(false)
  })
})
