// Which file of the built renderer a request path means, for both ways the renderer is served (the
// web shell over HTTP, Electron's app:// protocol). Decoded and normalized first, then kept inside
// the root: `..`, encoded slashes and absolute paths cannot leave it. Client-side routes (no such
// file) get index.html.
import { existsSync, statSync } from 'node:fs'
import { extname, join, normalize, resolve, sep } from 'node:path'

export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2'
}

export const contentTypeOf = (file: string): string =>
  CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'

export type StaticFile =
  | { kind: 'file'; path: string; isHtml: boolean }
  | { kind: 'bad-path' }
  | { kind: 'outside' }
  | { kind: 'not-built' }

export function resolveStaticFile(pathname: string, rootDir: string): StaticFile {
  const root = resolve(rootDir)
  let rel: string
  try {
    rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '')
  } catch {
    return { kind: 'bad-path' }
  }
  let file = join(root, rel)
  if (file !== root && !file.startsWith(root + sep)) return { kind: 'outside' }
  if (!existsSync(file) || statSync(file).isDirectory()) file = join(root, 'index.html')
  if (!existsSync(file)) return { kind: 'not-built' }
  return { kind: 'file', path: file, isHtml: extname(file).toLowerCase() === '.html' }
}
