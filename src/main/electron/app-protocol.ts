// The packaged renderer is served from app://onair/, a privileged standard scheme, instead of file://.
// Its origin is then `app://onair` on every OS and every install path (a Windows drive letter, a space
// in "Onair Studio.app", an AppImage mount), so the IPC sender check, the permission handlers, the
// navigation guard and the CSP can all compare origins exactly. Files come from out/renderer only.
import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import { protocol } from 'electron'
import { contentTypeOf, resolveStaticFile } from '../../node/static-files'
import { APP_ORIGIN, APP_SCHEME } from './renderer-target'

/** Must run before the app is ready: standard (real origin, relative URLs) and secure (media, fetch). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true }
    }
  ])
}

/** After ready: answers app://onair/<path> from rootDir, the HTML with the CSP of the moment. */
export function handleAppProtocol(rootDir: string, csp: () => Promise<string>): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url)
    if (`${url.protocol}//${url.host}` !== APP_ORIGIN) return new Response('', { status: 404 })
    const found = resolveStaticFile(url.pathname, rootDir)
    if (found.kind === 'bad-path') return new Response('Bad path.', { status: 400 })
    if (found.kind !== 'file') return new Response('Not found.', { status: 404 })
    const headers: Record<string, string> = {
      'content-type': contentTypeOf(found.path),
      'x-content-type-options': 'nosniff'
    }
    if (found.isHtml) headers['content-security-policy'] = await csp()
    const body = Readable.toWeb(createReadStream(found.path)) as ReadableStream
    return new Response(body, { status: 200, headers })
  })
}
