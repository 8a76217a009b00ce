import { describe, expect, it } from 'vitest'
import { contentSecurityPolicy } from '../../../src/main/core/csp'
import {
  isAllowedNavigation,
  isExternalLinkAllowed,
  isPermissionAllowed
} from '../../../src/main/electron/window-policy'

const ORIGINS = ['app://onair']

describe('window policy', () => {
  it('keeps navigation inside the renderer', () => {
    expect(isAllowedNavigation('app://onair/index.html#/streams', ORIGINS)).toBe(true)
    expect(isAllowedNavigation('https://evil.example/', ORIGINS)).toBe(false)
    expect(isAllowedNavigation('file:///etc/passwd', ORIGINS)).toBe(false)
    expect(isAllowedNavigation('garbage', ORIGINS)).toBe(false)
  })

  it('opens only https links externally', () => {
    expect(isExternalLinkAllowed('https://livepeer.studio/docs')).toBe(true)
    expect(isExternalLinkAllowed('http://example.com')).toBe(false)
    expect(isExternalLinkAllowed('file:///etc/passwd')).toBe(false)
    expect(isExternalLinkAllowed('javascript:alert(1)')).toBe(false)
  })

  it('grants media only to our own renderer', () => {
    expect(isPermissionAllowed('media', 'app://onair/index.html', ORIGINS)).toBe(true)
    expect(isPermissionAllowed('media', 'https://evil.example/', ORIGINS)).toBe(false)
    expect(isPermissionAllowed('geolocation', 'app://onair/index.html', ORIGINS)).toBe(false)
    expect(isPermissionAllowed('notifications', 'app://onair/index.html', ORIGINS)).toBe(false)
  })

  it('has a strict CSP that still lets hls.js use blob: workers and media', () => {
    const csp = contentSecurityPolicy()
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toMatch(/script-src[^;]*unsafe-eval/)
    expect(csp).toContain("media-src 'self' blob:")
    expect(csp).toContain("worker-src 'self' blob:")
    expect(csp).toContain("object-src 'none'")
  })
})
