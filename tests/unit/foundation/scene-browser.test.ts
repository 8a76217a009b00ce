// Browser sources (#34 §4): the address rule, the model's reducers and the saved-settings schema.
import { describe, expect, it } from 'vitest'
import {
  BROWSER_MAX_FPS,
  DEFAULT_BROWSER,
  LIMITS,
  activeScene,
  addBrowser,
  browserUrl,
  canAddBrowser,
  defaultScenes,
  itemsOf,
  removeItem,
  setBrowser,
  type BrowserSource
} from '../../../src/shared/scenes'
import { readScenes } from '../../../src/shared/scenes-saved'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'

const A = 16 / 9
const PAGE = { url: 'https://overlay.example/alerts?id=7', ...DEFAULT_BROWSER }

const urlOf = (typed: string): string | undefined => {
  const r = browserUrl(typed)
  return 'url' in r ? r.url : undefined
}

describe('a browser source address', () => {
  it('takes http and https; a bare name is https, a page on this computer http', () => {
    expect(urlOf('https://streamlabs.com/alert-box/v3/abc')).toBe(
      'https://streamlabs.com/alert-box/v3/abc'
    )
    expect(urlOf('  http://example.com/chat  ')).toBe('http://example.com/chat')
    expect(urlOf('example.com/overlay')).toBe('https://example.com/overlay')
    expect(urlOf('localhost:3000/overlay')).toBe('http://localhost:3000/overlay')
    expect(urlOf('127.0.0.1:8080')).toBe('http://127.0.0.1:8080/')
  })

  it('refuses other schemes, credentials, blanks and over-long addresses, saying why', () => {
    for (const [typed, words] of [
      ['file:///C:/Users/me/overlay.html', 'file:'],
      ['javascript:alert(1)', 'javascript:'],
      ['data:text/html,<b>x</b>', 'data:'],
      ['app://onair/index.html', 'app:'],
      ['https://me:secret@example.com/', 'user name or password'],
      ['   ', 'Type the address'],
      [`https://example.com/${'a'.repeat(LIMITS.urlLength)}`, 'longer than'],
      ['http://exa mple.com', 'not a web address']
    ] as const) {
      const r = browserUrl(typed)
      expect('error' in r ? r.error : `accepted as ${JSON.stringify(r)}`).toContain(words)
    }
  })
})

describe('browser sources in scenes', () => {
  it('goes on top of the active scene at its page size against 720p, centred, named by its host', () => {
    const s = addBrowser(defaultScenes(A), PAGE, A)
    const top = itemsOf(s, activeScene(s)).at(-1)!
    expect(top.source).toMatchObject({
      kind: 'browser',
      name: 'overlay.example',
      url: PAGE.url,
      width: 800,
      height: 600,
      fps: 30
    })
    const r = top.item.rect
    expect(r.w).toBeCloseTo(800 / 1280, 5)
    expect(r.h).toBeCloseTo(600 / 720, 5)
    expect(r.x + r.w / 2).toBeCloseTo(0.5, 5)
    expect(r.y + r.h / 2).toBeCloseTo(0.5, 5)
  })

  it('clamps page size and frame rate; a larger page fits the picture keeping its shape', () => {
    const s = addBrowser(defaultScenes(A), { ...PAGE, width: 5000, height: 0, fps: 240 }, A)
    const src = itemsOf(s, activeScene(s)).at(-1)!.source as BrowserSource
    expect(src).toMatchObject({
      width: LIMITS.browserWidth.max,
      height: LIMITS.browserHeight.min,
      fps: BROWSER_MAX_FPS
    })
    const big = addBrowser(defaultScenes(A), { ...PAGE, width: 1920, height: 1080 }, A)
    const r = itemsOf(big, activeScene(big)).at(-1)!.item.rect
    expect(r).toEqual({ x: 0, y: 0, w: 1, h: 1 })
  })

  it('setBrowser changes address, size and rate (clamped); other sources are untouched', () => {
    let s = addBrowser(defaultScenes(A), PAGE, A)
    const id = itemsOf(s, activeScene(s)).at(-1)!.source.id
    const before = s.sources.filter((x) => x.id !== id)
    s = setBrowser(s, id, { url: 'https://chat.example/', width: 400, fps: 0, name: ' Chat ' })
    expect(s.sources.find((x) => x.id === id)).toMatchObject({
      url: 'https://chat.example/',
      width: 400,
      height: 600,
      fps: 1,
      name: 'Chat'
    })
    expect(s.sources.filter((x) => x.id !== id)).toEqual(before)
    expect(setBrowser(s, 'camera', { url: 'https://x.example/' }).sources).toEqual(s.sources)
  })

  it('at most LIMITS.browsers; a removed one frees its place and its source', () => {
    let s = defaultScenes(A)
    for (let i = 0; i < LIMITS.browsers + 2; i++) s = addBrowser(s, PAGE, A)
    expect(s.sources.filter((x) => x.kind === 'browser')).toHaveLength(LIMITS.browsers)
    expect(canAddBrowser(s)).toBe(false)
    s = removeItem(s, itemsOf(s, activeScene(s)).at(-1)!.item.id)
    expect(s.sources.filter((x) => x.kind === 'browser')).toHaveLength(LIMITS.browsers - 1)
    expect(canAddBrowser(s)).toBe(true)
  })

  it('round-trips through the settings schema and readScenes', () => {
    const s = addBrowser(defaultScenes(A), PAGE, A)
    const [saved] = CALL_ARGS.saveSettings.parse([{ scenes: s }])
    expect(readScenes(JSON.parse(JSON.stringify(saved.scenes)), A)).toEqual(s)
  })

  it('a saved source with a non-web address or an unknown field is not kept', () => {
    const s = addBrowser(defaultScenes(A), PAGE, A)
    const src = s.sources.at(-1) as BrowserSource
    const withUrl = (url: string): unknown => ({
      ...s,
      sources: s.sources.map((x) => (x.id === src.id ? { ...src, url } : x))
    })
    const back = readScenes(withUrl('javascript:alert(1)'), A)
    expect(back.sources.some((x) => x.kind === 'browser')).toBe(false)
    // Its item goes with it; the scene keeps the rest.
    expect(itemsOf(back, activeScene(back)).map((x) => x.source.id)).not.toContain(src.id)
    expect(activeScene(back).items.length).toBe(activeScene(s).items.length - 1)
    const extra = { ...s, sources: [...s.sources.slice(0, -1), { ...src, preload: 'x.js' }] }
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: extra }]).success).toBe(false)
  })
})
