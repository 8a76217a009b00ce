// What every server of ours needs from Node: a request body read with a size limit (never buffering
// past it), and a listen() that names a busy port instead of crashing (HTTP and RTMP alike).
import type { IncomingMessage } from 'node:http'
import type { Server } from 'node:net'

/**
 * The whole body, or 'too-large' as soon as it (or its declared Content-Length) passes `limit`; the
 * rest of an oversized body is drained, not kept.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0)
    if (declared > limit) {
      req.resume()
      resolve('too-large')
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > limit) {
        req.removeAllListeners('data')
        chunks.length = 0
        req.resume()
        resolve('too-large')
        return
      }
      chunks.push(c)
    })
    req.on('end', () => {
      if (size <= limit) resolve(Buffer.concat(chunks))
    })
    req.on('error', reject)
  })
}

/**
 * Listens on host:port (0 = any free port) and resolves with the port. A busy or forbidden port
 * rejects with an error that names it ("API port 127.0.0.1:1935 is already in use") and keeps the
 * system's code (EADDRINUSE, EACCES) for callers that choose another port.
 */
export function listen(server: Server, host: string, port: number, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const why =
        err.code === 'EADDRINUSE'
          ? `${what} port ${host}:${port} is already in use`
          : `${what} port ${host}:${port} could not be opened: ${err.message}`
      reject(Object.assign(new Error(why), { code: err.code }))
    }
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      const addr = server.address()
      resolve(typeof addr === 'object' && addr ? addr.port : port)
    })
  })
}
