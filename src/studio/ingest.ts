// RTMP ingest on node-media-server's RTMP server (its protocol code, none of ours), reached only
// through nms-adapter.ts. We bind the port ourselves (NMS would process.exit(1) on a busy port),
// accept only publishers whose stream key the studio knows, let only our own puller play (a
// per-process token), and tell clean stops (the RTMP deleteStream command) from dropped sockets.
// Each Ingest sees only the sessions that arrived on its own port and logs only their lines, so
// several studios can share a process.
import { randomBytes } from 'node:crypto'
import { storageFault } from './http'
import { RtmpListener, type PublishMeta, type RtmpClient, type RtmpPublisher } from './nms-adapter'

export interface Publisher {
  streamKey: string
  /** Metadata the publisher announced (onMetaData); zeros when it sent none. */
  meta: () => PublishMeta
}

export interface IngestHooks {
  /** null = accept; otherwise the reason for refusing (logged, key redacted). */
  authorize(streamKey: string): string | null
  onPublish(p: Publisher): void
  onUnpublish(streamKey: string, clean: boolean): void
  /**
   * Our own puller `purpose` (pullUrl's) started playing the stream: the publisher's media time (ms)
   * it is sent from, where its output's time 0 is (undefined: not known).
   */
  onPuller?(streamKey: string, purpose: string, startMs: number | undefined): void
}

export class Ingest {
  private listener?: RtmpListener
  private readonly publishers = new Map<string, RtmpPublisher>()
  private readonly playToken = randomBytes(16).toString('hex')
  private boundPort = 0

  constructor(
    private readonly host: string,
    private readonly hooks: IngestHooks,
    private readonly log: (line: string) => void
  ) {}

  get port(): number {
    return this.boundPort
  }

  /**
   * The URL our puller plays: loopback, with the token no outside player has. `purpose` names the
   * puller (onPuller hears where its media begins).
   */
  pullUrl(streamKey: string, purpose?: string): string {
    const tail = purpose ? `&for=${encodeURIComponent(purpose)}` : ''
    return `rtmp://127.0.0.1:${this.boundPort}/live/${streamKey}?token=${this.playToken}${tail}`
  }

  /**
   * Listens on `port` (0 = any free port). Rejects with a clear error (EADDRINUSE...) instead of
   * exiting.
   */
  async start(port: number): Promise<number> {
    const listener = new RtmpListener(this.host, {
      publish: this.onPublish,
      play: this.onPlay,
      // NMS's own lines (connects, publish/play starts, protocol errors), already redacted.
      log: (level, line) => this.log(`ingest: ${level === 'info' ? '' : `${level}: `}${line}`)
    })
    this.boundPort = await listener.listen(port)
    this.listener = listener
    return this.boundPort
  }

  /** Closes the port and drops every connection; each publisher counts as an abrupt drop. */
  async stop(): Promise<void> {
    const listener = this.listener
    this.listener = undefined
    await listener?.close()
  }

  /** Ends a publisher's connection (terminate, delete, suspend). */
  drop(streamKey: string): void {
    this.publishers.get(streamKey)?.drop()
  }

  isPublishing(streamKey: string): boolean {
    return this.publishers.has(streamKey)
  }

  private readonly onPlay = (p: RtmpClient): void => {
    if (p.query.token !== this.playToken) {
      // Raw RTMP playback is not offered: viewers use HLS by playbackId.
      this.log(`ingest: refused a player on live/****`)
      p.drop()
      return
    }
    if (typeof p.query.for === 'string') this.hooks.onPuller?.(p.name, p.query.for, p.startMs)
  }

  private readonly onPublish = (p: RtmpPublisher): void => {
    const key = p.name
    const refuse = (why: string): void => {
      this.log(`ingest: refused a publisher on live/****: ${why}`)
      p.drop()
    }
    if (p.app !== 'live') return refuse('unknown application')
    if (this.publishers.has(key)) return refuse('the stream already has a publisher')
    const why = this.hooks.authorize(key)
    if (why !== null) return refuse(why)
    this.publishers.set(key, p)
    p.onEnd((clean) => this.ended(key, p, clean))
    try {
      this.hooks.onPublish({ streamKey: key, meta: () => p.meta() })
    } catch (err) {
      // The store could not record the new session (a full disk, a read-only folder): refuse this
      // publisher with the cause in the log, and keep the studio up for everything else.
      this.publishers.delete(key)
      refuse(
        storageFault(err)?.message ?? `could not start the session (${(err as Error).message})`
      )
    }
  }

  private ended(key: string, p: RtmpPublisher, clean: boolean): void {
    if (this.publishers.get(key) !== p) return
    this.publishers.delete(key)
    // The puller would wait for a publisher that is gone: end it now, it flushes what it has.
    p.endPlayers()
    this.hooks.onUnpublish(key, clean)
  }
}
