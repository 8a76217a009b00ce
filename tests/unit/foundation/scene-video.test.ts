// Video file sources (#34 §4): the model's reducers and the saved-settings schema.
import { describe, expect, it } from 'vitest'
import {
  LIMITS,
  MAX_GAIN,
  activeScene,
  addVideo,
  canAddVideo,
  defaultScenes,
  itemsOf,
  layersOf,
  removeItem,
  setSourceSound
} from '../../../src/shared/scenes'
import { readScenes } from '../../../src/shared/scenes-saved'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'
import { DEFAULT_SOURCE_AUDIO } from '../../../src/shared/audio'

const A = 16 / 9
const CLIP = { name: 'intro.mp4', width: 640, height: 360 }

describe('video sources', () => {
  it('a picked video goes on top of the active scene, muted, at gain 1, inside the picture', () => {
    const s = addVideo(defaultScenes(A), CLIP, A)
    const top = itemsOf(s, activeScene(s)).at(-1)!
    expect(top.source).toMatchObject({ kind: 'video', name: 'intro.mp4', muted: true, gain: 1 })
    const r = top.item.rect
    expect(r.x).toBeGreaterThanOrEqual(0)
    expect(r.y).toBeGreaterThanOrEqual(0)
    expect(r.x + r.w).toBeLessThanOrEqual(1)
    expect(r.y + r.h).toBeLessThanOrEqual(1)
    // The clip keeps its shape on a 16:9 output: a 16:9 clip is as wide (in output pixels) as tall x 16/9.
    expect((r.w * A) / r.h).toBeCloseTo(640 / 360, 5)
    expect(layersOf(s, activeScene(s)).at(-1)!.source.kind).toBe('video')
  })

  it('its sound is set on the source: unmute, gain clamped to 0..MAX_GAIN; other sources untouched', () => {
    let s = addVideo(defaultScenes(A), CLIP, A)
    const id = itemsOf(s, activeScene(s)).at(-1)!.source.id
    s = setSourceSound(s, id, { muted: false, gain: 5 })
    expect(s.sources.find((x) => x.id === id)).toMatchObject({ muted: false, gain: MAX_GAIN })
    s = setSourceSound(s, id, { gain: -1 })
    expect(s.sources.find((x) => x.id === id)).toMatchObject({ muted: false, gain: 0 })
    expect(setSourceSound(s, 'camera', { muted: true }).sources).toEqual(s.sources)
  })

  it('at most LIMITS.videos; a removed one frees its place and its source', () => {
    let s = defaultScenes(A)
    for (let i = 0; i < LIMITS.videos + 2; i++) s = addVideo(s, CLIP, A)
    expect(s.sources.filter((x) => x.kind === 'video')).toHaveLength(LIMITS.videos)
    expect(canAddVideo(s)).toBe(false)
    const item = itemsOf(s, activeScene(s)).at(-1)!.item
    s = removeItem(s, item.id)
    expect(s.sources.filter((x) => x.kind === 'video')).toHaveLength(LIMITS.videos - 1)
    expect(canAddVideo(s)).toBe(true)
  })

  it('round-trips through the settings schema and readScenes', () => {
    const s = setSourceSound(addVideo(defaultScenes(A), CLIP, A), 'x', {})
    const [saved] = CALL_ARGS.saveSettings.parse([{ scenes: s }])
    expect(readScenes(JSON.parse(JSON.stringify(saved.scenes)), A)).toEqual(s)
  })

  it('a video saved without its sound settings loads muted at gain 1 (schema and readScenes)', () => {
    const s = addVideo(defaultScenes(A), CLIP, A)
    const bare = {
      ...s,
      sources: s.sources.map((x) =>
        x.kind === 'video' ? { id: x.id, kind: 'video', name: x.name, width: 640, height: 360 } : x
      )
    }
    const [saved] = CALL_ARGS.saveSettings.parse([{ scenes: bare }])
    expect(saved.scenes!.sources.find((x) => x.kind === 'video')).toMatchObject({
      muted: true,
      gain: 1
    })
    expect(readScenes(bare, A).sources.find((x) => x.kind === 'video')).toMatchObject({
      muted: true,
      gain: 1
    })
  })

  it("a video's chain (gain, compressor, limiter, offset, monitoring) is its source's: set, saved, read back; none saved gives the defaults", () => {
    let s = addVideo(defaultScenes(A), CLIP, A)
    const id = s.sources.find((x) => x.kind === 'video')!.id
    expect(s.sources.find((x) => x.id === id)).toMatchObject({ audio: DEFAULT_SOURCE_AUDIO })
    const chain = {
      ...DEFAULT_SOURCE_AUDIO,
      gainDb: 6,
      syncOffsetMs: 120,
      monitoring: 'monitor-and-output' as const,
      limiter: { ...DEFAULT_SOURCE_AUDIO.limiter, enabled: true }
    }
    s = setSourceSound(s, id, { audio: chain })
    expect(s.sources.find((x) => x.id === id)).toMatchObject({ audio: chain, muted: true })
    const [saved] = CALL_ARGS.saveSettings.parse([{ scenes: s }])
    const back = readScenes(JSON.parse(JSON.stringify(saved.scenes)), A)
    expect(back.sources.find((x) => x.id === id)).toMatchObject({ audio: chain })
    // A negative offset is refused by the schema, as the microphone's is.
    const bad = setSourceSound(s, id, { audio: { ...chain, syncOffsetMs: -5 } })
    expect(() => CALL_ARGS.saveSettings.parse([{ scenes: bad }])).toThrow()
    // Saved before a video had a chain: the defaults (as it sounded).
    const bare = {
      ...s,
      sources: s.sources.map((x) => (x.kind === 'video' ? { ...x, audio: undefined } : x))
    }
    expect(readScenes(bare, A).sources.find((x) => x.id === id)).toMatchObject({
      audio: DEFAULT_SOURCE_AUDIO
    })
  })

  it('settings from before video sources load unchanged', () => {
    const s = defaultScenes(A)
    const [saved] = CALL_ARGS.saveSettings.parse([{ scenes: s }])
    expect(saved.scenes).toEqual(s)
  })
})
