// The browser source calls' arguments are checked before the core sees them (#34 §4): an address
// that is not a web page, a page too large, a bad rate or a bad serial is a bad-request.
import { describe, expect, it, vi } from 'vitest'
import { dispatch } from '../../../src/main/core/dispatch'
import type { OnairCalls } from '../../../src/shared/contract'
import { BROWSER_MAX_FPS, LIMITS } from '../../../src/shared/scenes'

const good = { url: 'https://alerts.example/widget?token=abc', width: 800, height: 600, fps: 30 }

function core() {
  const openBrowserSource = vi.fn(async () => ({ kind: 'loading' }))
  const readBrowserFrame = vi.fn(async () => new Uint8Array(16))
  const closeBrowserSource = vi.fn(async () => undefined)
  return {
    calls: { openBrowserSource, readBrowserFrame, closeBrowserSource } as unknown as OnairCalls,
    openBrowserSource,
    readBrowserFrame
  }
}

const refused = async (name: string, args: unknown[], says: string) => {
  const c = core()
  const r = await dispatch(c.calls, name, args)
  expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } })
  expect((r as { error: { message: string } }).error.message).toContain(says)
  expect(c.openBrowserSource).not.toHaveBeenCalled()
  expect(c.readBrowserFrame).not.toHaveBeenCalled()
}

describe('dispatch: browser sources', () => {
  it('refuses an address that is not a web page', async () => {
    await refused(
      'openBrowserSource',
      ['b1', { ...good, url: 'javascript:alert(1)' }],
      'http or https'
    )
    await refused(
      'openBrowserSource',
      ['b1', { ...good, url: 'file:///etc/passwd' }],
      'http or https'
    )
    await refused(
      'openBrowserSource',
      ['b1', { ...good, url: 'https://u:p@a.example/' }],
      'user name'
    )
    await refused(
      'openBrowserSource',
      ['b1', { ...good, url: `https://a.example/${'x'.repeat(LIMITS.urlLength)}` }],
      'url'
    )
  })

  it('refuses a page too large, a fractional size, a bad rate and unknown fields', async () => {
    await refused(
      'openBrowserSource',
      ['b1', { ...good, width: LIMITS.browserWidth.max + 1 }],
      'width'
    )
    await refused(
      'openBrowserSource',
      ['b1', { ...good, height: LIMITS.browserHeight.max + 1 }],
      'height'
    )
    await refused('openBrowserSource', ['b1', { ...good, width: 100.5 }], 'width')
    await refused('openBrowserSource', ['b1', { ...good, fps: 0 }], 'fps')
    await refused('openBrowserSource', ['b1', { ...good, fps: BROWSER_MAX_FPS + 1 }], 'fps')
    await refused('openBrowserSource', ['b1', { ...good, preload: '/tmp/x.js' }], 'preload')
    await refused('openBrowserSource', ['', good], '0')
  })

  it('refuses a negative or fractional serial to read after', async () => {
    await refused('readBrowserFrame', ['b1', -1], '1')
    await refused('readBrowserFrame', ['b1', 1.5], '1')
  })

  it('passes a good page on, its address as browserUrl writes it', async () => {
    const c = core()
    const r = await dispatch(c.calls, 'openBrowserSource', [
      'b1',
      { ...good, url: 'https://Alerts.Example' }
    ])
    expect(r).toEqual({ ok: true, value: { kind: 'loading' } })
    expect(c.openBrowserSource).toHaveBeenCalledWith('b1', {
      ...good,
      url: 'https://alerts.example/'
    })
    expect(await dispatch(c.calls, 'readBrowserFrame', ['b1', 0])).toMatchObject({ ok: true })
  })
})
