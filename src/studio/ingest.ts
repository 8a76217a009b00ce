// RTMP ingest on node-media-server's RTMP server (its protocol code, none of ours). We bind the
// port ourselves (NMS would process.exit(1) on a busy port), accept only publishers whose stream
// key the studio knows, let only our own puller play (a per-process token), and tell clean stops
// (the RTMP deleteStream command) from dropped sockets. NMS keeps global state in a module
// singleton; each Ingest only handles sessions that arrived on its own port, so several studios can
// share a process.
import { randomBytes } from 'node:crypto'
import type { Socket } from 'node:net'
import Context from 'node-media-server/src/core/context.js'
import logger from 'node-media-server/src/core/logger.js'
import NodeRtmpServer from 'node-media-server/src/server/rtmp_server.js'
import { storageFault } from './http'
import { redact } from '../shared/redact'

/** The parts of an NMS RTMP session we read. */
interface NmsSession {
  id: string
  ip: string
  socket?: Socket
  streamApp: string
  streamName: string
  streamQuery: Record<string, unknown>
  audioCodec: number
  videoCodec: number
  videoWidth: number
  videoHeight: number
  videoDatarate: number
  rtmp?: { onDeleteStream: () => void }
  broadcast: { publishGraceMs: number; subscribers: Map<string, { close: () => void }> }
  close: () => void
}

export interface Publisher {
  streamKey: string
  /** Metadata the publisher announced (onMetaData); zeros when it sent none. */
  meta: () => {
    audioCodec: number
    videoCodec: number
    width: number
    height: number
    videoKbps: number
  }
}

export interface IngestHooks {
  /** null = accept; otherwise the reason for refusing (logged, key redacted). */
  authorize(streamKey: string): string | null
  onPublish(p: Publisher): void
  onUnpublish(streamKey: string, clean: boolean): void
}

let loggerRouted = false
let routedLog: (line: string) => void = () => undefined

export class Ingest {
  private server?: NodeRtmpServer
  private readonly publishers = new Map<string, NmsSession>()
  private readonly clean = new Set<string>()
  private readonly playToken = randomBytes(16).toString('hex')
  private boundPort = 0
  private readonly listeners: Array<[string, (s: NmsSession) => void]> = []

  constructor(
    private readonly host: string,
    private readonly hooks: IngestHooks,
    private readonly log: (line: string) => void
  ) {
    // NMS logs every connect with the stream path (= the key) to stdout: route it through
    // redaction, errors and warnings only.
    routedLog = log
    if (!loggerRouted) {
      loggerRouted = true
      logger.log = (message: string, level = 'info') => {
        if (level === 'error' || level === 'warn') routedLog(`ingest: ${redact(String(message))}`)
      }
    }
    this.listeners.push(['prePublish', this.onPrePublish], ['prePlay', this.onPrePlay])
  }

  get port(): number {
    return this.boundPort
  }

  /** The URL our puller plays: loopback, with the token no outside player has. */
  pullUrl(streamKey: string): string {
    return `rtmp://127.0.0.1:${this.boundPort}/live/${streamKey}?token=${this.playToken}`
  }

  /**
   * Listens on `port` (0 = any free port). Rejects with a clear error (EADDRINUSE...) instead of
   * exiting.
   */
  async start(port: number): Promise<number> {
    // The NMS server reads its config from the shared context when constructed; no auth, no HTTP.
    Context.config = { rtmp: { port: 1935 }, bind: this.host }
    const server = new NodeRtmpServer()
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        const why =
          err.code === 'EADDRINUSE'
            ? `RTMP port ${this.host}:${port} is already in use`
            : `RTMP port ${this.host}:${port} could not be opened: ${err.message}`
        reject(Object.assign(new Error(why), { code: err.code }))
      }
      server.tcpServer.once('error', onError)
      server.tcpServer.listen(port, this.host, () => {
        server.tcpServer.off('error', onError)
        server.tcpServer.on('error', (e) => this.log(`ingest: server error ${e.message}`))
        resolve()
      })
    })
    this.server = server
    const addr = server.tcpServer.address()
    this.boundPort = typeof addr === 'object' && addr ? addr.port : port
    for (const [ev, fn] of this.listeners) Context.eventEmitter.on(ev, fn)
    return this.boundPort
  }

  /** Closes the port and drops every connection; each publisher counts as an abrupt drop. */
  async stop(): Promise<void> {
    const server = this.server
    if (!server) return
    this.server = undefined
    for (const [ev, fn] of this.listeners) Context.eventEmitter.off(ev, fn)
    const closed = new Promise<void>((resolve) => server.tcpServer.close(() => resolve()))
    for (const s of server._sockets) s.destroy()
    await closed
  }

  /** Ends a publisher's connection (terminate, delete, suspend). */
  drop(streamKey: string): void {
    const s = this.publishers.get(streamKey)
    s?.socket?.destroy()
  }

  isPublishing(streamKey: string): boolean {
    return this.publishers.has(streamKey)
  }

  private mine(s: NmsSession): boolean {
    return this.server !== undefined && s.socket?.localPort === this.boundPort
  }

  private readonly onPrePlay = (s: NmsSession): void => {
    if (!this.mine(s)) return
    if (s.streamQuery?.token !== this.playToken) {
      // Raw RTMP playback is not offered: viewers use HLS by playbackId.
      this.log(`ingest: refused a player on live/****`)
      s.socket?.destroy()
    }
  }

  private readonly onPrePublish = (s: NmsSession): void => {
    if (!this.mine(s)) return
    // Our own resume window replaces NMS's 30 s grace: its publish record ends at once (refused
    // publishers included, so they never hold the path).
    s.broadcast.publishGraceMs = 0
    const key = s.streamName
    const refuse = (why: string): void => {
      this.log(`ingest: refused a publisher on live/****: ${why}`)
      s.socket?.destroy()
    }
    if (s.streamApp !== 'live') return refuse('unknown application')
    if (this.publishers.has(key)) return refuse('the stream already has a publisher')
    const why = this.hooks.authorize(key)
    if (why !== null) return refuse(why)
    this.publishers.set(key, s)
    // NMS ignores deleteStream; it is how an RTMP client says it is done (a clean stop).
    if (s.rtmp)
      s.rtmp.onDeleteStream = () => {
        this.clean.add(s.id)
        s.socket?.end()
      }
    s.socket?.once('close', () => this.ended(key, s))
    try {
      this.startSession(key, s)
    } catch (err) {
      // The store could not record the new session (a full disk, a read-only folder): refuse this
      // publisher with the cause in the log, and keep the studio up for everything else.
      this.publishers.delete(key)
      refuse(
        storageFault(err)?.message ?? `could not start the session (${(err as Error).message})`
      )
    }
  }

  private startSession(key: string, s: NmsSession): void {
    this.hooks.onPublish({
      streamKey: key,
      meta: () => ({
        audioCodec: Number(s.audioCodec) || 0,
        videoCodec: Number(s.videoCodec) || 0,
        width: Number(s.videoWidth) || 0,
        height: Number(s.videoHeight) || 0,
        videoKbps: Number(s.videoDatarate) || 0
      })
    })
  }

  private ended(key: string, s: NmsSession): void {
    if (this.publishers.get(key) !== s) return
    this.publishers.delete(key)
    const clean = this.clean.delete(s.id)
    // The puller would wait for a publisher that is gone: end it now, it flushes what it has.
    for (const sub of s.broadcast.subscribers.values()) sub.close()
    this.hooks.onUnpublish(key, clean)
  }
}
