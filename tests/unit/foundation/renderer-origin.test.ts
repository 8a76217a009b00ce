// The renderer's origin is app://onair on every OS and install path; calls, permissions and
// navigation are accepted from exactly that origin (and the dev server's), and nothing that merely
// looks like it: the file:// URL of the install folder, another host, an iframe.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connectHostsOf, contentSecurityPolicy } from '../../../src/main/core/csp'
import { isOwnOrigin, originOf } from '../../../src/shared/origin'
import { isTrustedSender } from '../../../src/main/electron/ipc-handler'
import { rendererTarget } from '../../../src/main/electron/renderer-target'
import { isAllowedNavigation, isPermissionAllowed } from '../../../src/main/electron/window-policy'
import { resolveStaticFile } from '../../../src/node/static-files'

// Where creators install Onair, and the file:// URL Chromium shows for each (drive letters get a
// third slash, spaces and non-ASCII letters are percent-encoded): what a prefix check got wrong.
const INSTALLS = [
  {
    os: 'Windows',
    path: 'C:\\Users\\Ana López\\AppData\\Local\\Programs\\Onair\\resources\\app.asar\\out\\renderer\\index.html',
    fileUrl:
      'file:///C:/Users/Ana%20L%C3%B3pez/AppData/Local/Programs/Onair/resources/app.asar/out/renderer/index.html'
  },
  {
    os: 'macOS',
    path: '/Applications/Onair Studio.app/Contents/Resources/app.asar/out/renderer/index.html',
    fileUrl:
      'file:///Applications/Onair%20Studio.app/Contents/Resources/app.asar/out/renderer/index.html'
  },
  {
    os: 'Linux AppImage',
    path: '/tmp/.mount_OnairX7f3kQ/resources/app.asar/out/renderer/index.html',
    fileUrl: 'file:///tmp/.mount_OnairX7f3kQ/resources/app.asar/out/renderer/index.html'
  }
]

const packaged = rendererTarget({})
const top = (url: string): { senderFrame: { url: string; parent: unknown } } => ({
  senderFrame: { url, parent: null }
})

describe.each(INSTALLS)('renderer origin, installed on $os', ({ fileUrl }) => {
  it('loads app://onair/index.html whatever the install path', () => {
    expect(packaged).toEqual({ url: 'app://onair/index.html', origins: ['app://onair'] })
  })

  it('accepts calls, media and navigation from the renderer', () => {
    expect(isTrustedSender(top('app://onair/index.html'), packaged.origins)).toBe(true)
    expect(isTrustedSender(top('app://onair/index.html#/live'), packaged.origins)).toBe(true)
    expect(isPermissionAllowed('media', 'app://onair/index.html', packaged.origins)).toBe(true)
    expect(isAllowedNavigation('app://onair/streams', packaged.origins)).toBe(true)
  })

  it('refuses the install folder as file://, other origins, look-alikes and iframes', () => {
    const refused = [
      fileUrl,
      'file:///C:/evil/out/renderer/index.html',
      'app://onair.evil.example/index.html',
      'app://evil/index.html',
      'app://onair:8080/index.html',
      'http://onair/index.html',
      'https://evil.example/app://onair/index.html',
      'not a url'
    ]
    for (const url of refused) {
      expect(isTrustedSender(top(url), packaged.origins), url).toBe(false)
      expect(isPermissionAllowed('media', url, packaged.origins), url).toBe(false)
      expect(isAllowedNavigation(url, packaged.origins), url).toBe(false)
    }
    const iframe = { senderFrame: { url: 'app://onair/index.html', parent: {} } }
    expect(isTrustedSender(iframe, packaged.origins)).toBe(false)
  })
})

describe('origins', () => {
  it('are parsed, lower-cased and exact', () => {
    expect(originOf('APP://OnAir/index.html')).toBe('app://onair')
    expect(originOf('http://127.0.0.1:5173/x?y')).toBe('http://127.0.0.1:5173')
    expect(originOf('file:///C:/x')).toBeNull()
    expect(isOwnOrigin('http://localhost:5173/', ['http://localhost:5173'])).toBe(true)
    expect(isOwnOrigin('http://localhost:5174/', ['http://localhost:5173'])).toBe(false)
  })

  it('dev mode keeps working with the dev server origin', () => {
    const dev = rendererTarget({ ELECTRON_RENDERER_URL: 'http://localhost:5173/' })
    expect(dev.origins).toEqual(['http://localhost:5173'])
    expect(isTrustedSender(top('http://localhost:5173/index.html'), dev.origins)).toBe(true)
    expect(isTrustedSender(top('app://onair/index.html'), dev.origins)).toBe(false)
  })
})

describe('the app:// files, from an install folder with spaces and non-ASCII letters', () => {
  const base = mkdtempSync(join(tmpdir(), 'onair-install-'))
  const root = join(base, 'Onair Studio.app', 'Ana López', 'out', 'renderer')
  mkdirSync(join(root, 'assets'), { recursive: true })
  writeFileSync(join(root, 'index.html'), '<div id="root"></div>')
  writeFileSync(join(root, 'assets', 'index-1.js'), 'x')
  writeFileSync(join(base, 'Onair Studio.app', 'secret.txt'), 'no')
  afterAll(() => rmSync(base, { recursive: true, force: true }))

  it('serves the page, its assets and client routes, and nothing outside the root', () => {
    expect(resolveStaticFile('/index.html', root)).toMatchObject({ kind: 'file', isHtml: true })
    expect(resolveStaticFile('/assets/index-1.js', root)).toEqual({
      kind: 'file',
      path: join(root, 'assets', 'index-1.js'),
      isHtml: false
    })
    expect(resolveStaticFile('/streams', root)).toMatchObject({ path: join(root, 'index.html') })
    // An absolute path's dot segments stop at the root; a relative one that climbs out is refused.
    expect(resolveStaticFile('/..%2f..%2f..%2fsecret.txt', root)).toMatchObject({
      path: join(root, 'index.html')
    })
    expect(resolveStaticFile('..%2f..%2f..%2fsecret.txt', root)).toEqual({ kind: 'outside' })
    expect(resolveStaticFile('/%E0%A4%A', root)).toEqual({ kind: 'bad-path' })
  })
})

describe('CSP from the active connection', () => {
  it('allows the active service exactly, and Livepeer its CDN hosts', () => {
    const local = connectHostsOf({
      kind: 'local',
      urls: ['http://127.0.0.1:4010/api', 'http://127.0.0.1:4010/hls']
    })
    expect(local).toEqual(['http://127.0.0.1:4010'])
    const csp = contentSecurityPolicy(local, ['ws://127.0.0.1:9000'])
    expect(csp).toContain("connect-src 'self' ws://127.0.0.1:9000 http://127.0.0.1:4010;")
    expect(csp).not.toContain('127.0.0.1:*')
    const lp = connectHostsOf({ kind: 'livepeer', urls: ['https://livepeer.studio/api'] })
    expect(lp).toContain('https://livepeer.studio')
    expect(lp).toContain('https://*.lp-playback.studio')
    expect(connectHostsOf(null)).toEqual([])
  })
})
