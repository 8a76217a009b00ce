// A browser source's state in words (features/scenes/browser-text.ts), for each state main sends
// (shared/contract/browser-sources.ts), and its address as lists show it: the host only.
import { describe, expect, it } from 'vitest'
import {
  browserHost,
  browserStateText
} from '../../../src/renderer/src/features/scenes/browser-text'

describe('a browser source in words', () => {
  it('says the web shell shows pages only in the desktop app, and that the source stays', () => {
    const t = browserStateText({ kind: 'needs-desktop' })
    expect(t.text).toBe(
      'Web pages are shown only in the Onair desktop app: here this source stays in the scene and draws nothing.'
    )
    expect(t.action).toBeUndefined()
  })

  it("names a failed load with the engine's words and offers a way out", () => {
    const t = browserStateText({ kind: 'load-failed', code: -105, detail: 'ERR_NAME_NOT_RESOLVED' })
    expect(t.text).toBe(
      'The page did not load (ERR_NAME_NOT_RESOLVED, -105). Check the address, or open it in a web browser to see whether it works; then try again.'
    )
    expect(t.action).toBe('retry')
    expect(t.problem).toBe(true)
  })

  it('offers Reload for a crashed page, with its reason', () => {
    const t = browserStateText({ kind: 'crashed', reason: 'oom' })
    expect(t.text).toBe('The page stopped (oom). Reload starts it again.')
    expect(t.action).toBe('reload')
  })

  it('says loading, showing, and a page not on screen', () => {
    expect(browserStateText({ kind: 'loading' }).text).toBe('Loading the page…')
    expect(browserStateText({ kind: 'showing' }).text).toBe('Showing the page.')
    expect(browserStateText({ kind: 'closed' }).text).toBe(
      'Not on screen: its page opens when a scene shows it.'
    )
    expect(browserStateText(undefined).text).toBe(
      'Not on screen: its page opens when a scene shows it.'
    )
    expect(browserStateText({ kind: 'showing' }).problem).toBe(false)
  })

  it('shows an address as its host only (tokens in the path or query are never listed)', () => {
    expect(browserHost('https://streamlabs.com/alert-box/v3/SECRET123?token=abc')).toBe(
      'streamlabs.com'
    )
    expect(browserHost('http://localhost:3000/overlay')).toBe('localhost:3000')
    expect(browserHost('not a url')).toBe('a web page')
  })
})
