// Browser sources in main (#34 §4): the pages come from the Node painter (tests/helpers/browser-painter.ts,
// a real timer at the page's rate), read back through readBrowserFrame's long poll.
import { afterEach, describe, expect, it } from 'vitest'
import { BrowserSources, browserOrigin, safeDetail } from '../../../src/main/core/browser-sources'
import {
  BROWSER_FRAME_HEADER_BYTES,
  BROWSER_FRAME_PREMULTIPLIED,
  type BrowserPage,
  type BrowserStateEvent
} from '../../../src/shared/contract'
import { LIMITS } from '../../../src/shared/scenes'
import { AppFailure } from '../../../src/shared/result'
import { counterOf, painter } from '../../helpers/browser-painter'
import { waitUntil } from '../../helpers/wait-until'

const page = (over: Partial<BrowserPage> = {}): BrowserPage => ({
  url: 'https://alerts.example/widget/alertbox?token=SECRET123456#ff8000',
  width: 32,
  height: 16,
  fps: 30,
  ...over
})

const head = (b: Uint8Array) => {
  const v = new DataView(b.buffer, b.byteOffset, BROWSER_FRAME_HEADER_BYTES)
  return {
    serial: v.getUint32(0, true),
    width: v.getUint32(4, true),
    height: v.getUint32(8, true),
    flags: v.getUint32(12, true)
  }
}

let made: BrowserSources[] = []
function setup(withFactory = true) {
  const paint = painter()
  const events: BrowserStateEvent[] = []
  const log: string[] = []
  const b = new BrowserSources({
    factory: withFactory ? paint : undefined,
    emit: (e) => events.push(e),
    log: (l) => log.push(l)
  })
  made.push(b)
  return {
    b,
    paint,
    events,
    log,
    kinds: (id: string) => events.filter((e) => e.sourceId === id).map((e) => e.state.kind)
  }
}

afterEach(async () => {
  for (const b of made) await b.closeAll()
  made = []
})

describe('browser sources', () => {
  it('answers a painted frame with its header and BGRA pixels, and the next only once painted', async () => {
    const { b, kinds } = setup()
    expect(await b.open('s1', page())).toEqual({ kind: 'loading' })
    const first = await b.readFrame('s1', 0)
    const h = head(first)
    expect(h).toMatchObject({ width: 32, height: 16, flags: BROWSER_FRAME_PREMULTIPLIED })
    expect(h.serial).toBeGreaterThan(0)
    expect(first.byteLength).toBe(BROWSER_FRAME_HEADER_BYTES + 32 * 16 * 4)
    const px = first.subarray(BROWSER_FRAME_HEADER_BYTES)
    // #ff8000 as B G R A, past the first pixel (the painter's counter).
    expect([...px.subarray(4, 8)]).toEqual([0x00, 0x80, 0xff, 255])
    expect(counterOf(px)).toBeGreaterThan(0)
    // The long poll: a newer frame, not the same one again.
    const next = await b.readFrame('s1', h.serial)
    expect(head(next).serial).toBeGreaterThan(h.serial)
    expect(counterOf(next.subarray(BROWSER_FRAME_HEADER_BYTES))).toBeGreaterThan(counterOf(px))
    expect(kinds('s1')).toEqual(['showing'])
  })

  it('answers a header alone after about a second when no newer frame comes', async () => {
    const { b, paint } = setup()
    await b.open('s1', page({ fps: 1 }))
    const first = await b.readFrame('s1', 0)
    // Stop the page painting: the next read must time out.
    paint.pages[0]!.crash()
    const t0 = Date.now()
    const r = await b.readFrame('s1', head(first).serial)
    const waited = Date.now() - t0
    expect(head(r)).toEqual({ serial: head(first).serial, width: 0, height: 0, flags: 0 })
    expect(r.byteLength).toBe(BROWSER_FRAME_HEADER_BYTES)
    expect(waited).toBeGreaterThanOrEqual(900)
    expect(waited).toBeLessThan(3000)
  })

  it('answers a waiting read as soon as the page paints (no polling)', async () => {
    const { b } = setup()
    await b.open('s1', page({ fps: 2 }))
    const first = await b.readFrame('s1', 0)
    const second = await b.readFrame('s1', head(first).serial)
    // At 2 fps the next paint comes within the 1 s bound: the read is answered with that frame, not
    // with the header alone that the bound would give (no timing asserted: the frame says it).
    expect(head(second).serial).toBe(head(first).serial + 1)
    expect(head(second).width).toBe(32)
  })

  it('says needs-desktop without a page factory and keeps nothing', async () => {
    const { b, events } = setup(false)
    expect(await b.open('s1', page())).toEqual({ kind: 'needs-desktop' })
    expect(b.openCount).toBe(0)
    expect(events).toEqual([])
    await expect(b.readFrame('s1', 0)).rejects.toMatchObject({ error: { code: 'not-found' } })
  })

  it(`opens at most ${LIMITS.browsers} pages, and says so`, async () => {
    const { b, paint } = setup()
    for (let i = 0; i < LIMITS.browsers; i++) await b.open(`s${i}`, page())
    const e = await b.open('one-more', page()).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(AppFailure)
    expect((e as AppFailure).error.message).toContain(`At most ${LIMITS.browsers}`)
    expect(paint.pages).toHaveLength(LIMITS.browsers)
    // The same id again is not one more page.
    await b.open('s0', page())
    expect(paint.pages).toHaveLength(LIMITS.browsers)
  })

  it('navigates on a new address and only resizes or sets the rate otherwise, keeping the page', async () => {
    const { b, paint, kinds } = setup()
    await b.open('s1', page())
    await b.readFrame('s1', 0)
    expect(await b.open('s1', page({ width: 20, height: 10, fps: 5 }))).toEqual({ kind: 'showing' })
    expect(paint.pages).toHaveLength(1)
    expect(paint.pages[0]!).toMatchObject({ width: 20, height: 10, fps: 5 })
    await waitUntil(
      async () => head(await b.readFrame('s1', 0)).width === 20,
      'a 20 px frame',
      5000
    )
    expect(
      await b.open(
        's1',
        page({ url: 'https://other.example/#00ff00', width: 20, height: 10, fps: 5 })
      )
    ).toEqual({
      kind: 'loading'
    })
    expect(paint.pages).toHaveLength(1)
    expect(paint.pages[0]!.url).toBe('https://other.example/#00ff00')
    await waitUntil(
      async () => {
        const f = await b.readFrame('s1', 0)
        return f[BROWSER_FRAME_HEADER_BYTES + 5] === 0xff && f[BROWSER_FRAME_HEADER_BYTES + 6] === 0
      },
      'a green frame',
      5000
    )
    expect(kinds('s1')).toEqual(['showing', 'loading', 'showing'])
  })

  it('says a failed load and a crash, without the address, and reloads on the next open', async () => {
    const { b, events, kinds, paint } = setup()
    await b.open('f', page({ url: 'https://fail.invalid/x?token=SECRET123456' }))
    await waitUntil(() => kinds('f').includes('load-failed'), 'load-failed', 5000)
    expect(events.find((e) => e.state.kind === 'load-failed')?.state).toEqual({
      kind: 'load-failed',
      code: -105,
      detail: 'ERR_NAME_NOT_RESOLVED'
    })
    // Chromium's error page, painted after the failure, is not a frame to put on air.
    await waitUntil(() => paint.pages[0]!.paints > 0, 'the error page painted', 5000)
    expect(head(await b.readFrame('f', 0))).toMatchObject({ width: 0, height: 0 })
    await b.open('c', page({ url: 'https://crash.invalid/' }))
    await waitUntil(() => kinds('c').includes('crashed'), 'crashed', 5000)
    expect(events.find((e) => e.state.kind === 'crashed')?.state).toEqual({
      kind: 'crashed',
      reason: 'crashed'
    })
    // Try again with the same address: a navigation, in the same page.
    expect(await b.open('f', page({ url: 'https://fail.invalid/x?token=SECRET123456' }))).toEqual({
      kind: 'loading'
    })
    expect(paint.pages).toHaveLength(2)
    await waitUntil(
      () => kinds('f').filter((k) => k === 'load-failed').length === 2,
      'failed again',
      5000
    )
  })

  it('stops the painting on close and on closeAll; a read then is not-found', async () => {
    const { b, paint, kinds } = setup()
    await b.open('s1', page({ fps: 1 }))
    await b.open('s2', page())
    const f = await b.readFrame('s1', 0)
    const waiting = b.readFrame('s1', head(f).serial)
    await b.close('s1')
    await expect(waiting).rejects.toMatchObject({ error: { code: 'not-found' } })
    await expect(b.readFrame('s1', 0)).rejects.toMatchObject({ error: { code: 'not-found' } })
    expect(paint.pages[0]!.closed).toBe(true)
    const paints = paint.pages[0]!.paints
    expect(kinds('s1').at(-1)).toBe('closed')
    await b.closeAll()
    expect(paint.openPages()).toEqual([])
    expect(kinds('s2').at(-1)).toBe('closed')
    await new Promise((r) => setTimeout(r, 100))
    expect(paint.pages[0]!.paints).toBe(paints)
    await expect(b.open('s3', page())).rejects.toBeInstanceOf(AppFailure)
  })

  it('logs an address by its origin only; a failure detail never carries the path or query', async () => {
    const { b, log } = setup()
    await b.open('s1', page())
    await b.close('s1')
    const all = log.join('\n')
    expect(all).toContain('https://alerts.example')
    expect(all).not.toContain('alertbox')
    expect(all).not.toContain('SECRET123456')
    expect(browserOrigin('https://a.example:8443/p?token=x')).toBe('https://a.example:8443')
    const d = safeDetail(
      'net::ERR_FAILED at https://alerts.example/widget/alertbox?token=SECRET123456'
    )
    expect(d).toBe('net::ERR_FAILED at https://alerts.example')
  })
})
