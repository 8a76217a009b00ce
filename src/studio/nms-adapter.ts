// Every touch of node-media-server's internals lives in this file (with its typings in nms.d.ts):
// NMS 4.x ships no types and no API for embedding its RTMP server in another program, so we reach
// into its modules. The version is pinned exactly in package.json; an upgrade is reviewed here and
// in nms.d.ts, nowhere else. Each touch is marked "NMS:" with what it relies on and why.
//
// What ingest.ts gets: RtmpListener, NMS's RTMP protocol code on a port we bind ourselves, which
// hands over the publishers and players that arrive on *its* port and only *its* NMS log lines,
// redacted. Several listeners can share a process (tests run several studios in one), although
// NMS keeps its state (config, sessions, broadcasts, events, logger) in process-wide singletons.
import type { Socket } from 'node:net'
import Context from 'node-media-server/src/core/context.js'
import logger from 'node-media-server/src/core/logger.js'
import NodeRtmpServer from 'node-media-server/src/server/rtmp_server.js'
import { listen } from '../node/http'
import { redactNmsLine } from '../shared/redact'

/**
 * NMS: the fields of its RtmpSession (session/rtmp_session.js over base_session.js) we use. NMS
 * passes these objects, untyped, with the prePublish and prePlay events.
 */
interface NmsSession {
  /** NMS: random per connection; its log lines name the session by it. */
  id: string
  /** NMS: set in the constructor to the accepted socket; how we tell whose session it is. */
  socket: Socket
  /** NMS: app, name (without query) and parsed query, set by onConnect before the events. */
  streamApp: string
  streamName: string
  streamQuery: Record<string, unknown> | undefined
  /** NMS: copied from the publisher's onMetaData by BroadcastServer.broadcastMessage. */
  audioCodec: unknown
  videoCodec: unknown
  videoWidth: unknown
  videoHeight: unknown
  videoDatarate: unknown
  /** NMS: the protocol state machine; invoke "deleteStream" calls its empty onDeleteStream. */
  rtmp: { onDeleteStream: (...args: unknown[]) => void }
  /** NMS: the stream's BroadcastServer (shared by its publisher and players). */
  broadcast: { publishGraceMs: number; subscribers: Map<string, { close: () => void }> }
}

export type NmsLogLevel = 'info' | 'warn' | 'error'

/** What a publisher announced in onMetaData (zeros when it sent none). */
export interface PublishMeta {
  audioCodec: number
  videoCodec: number
  width: number
  height: number
  videoKbps: number
}

/** A client that asked to publish or play on one listener. */
export interface RtmpClient {
  /** NMS's session id (its log lines name sessions by it). */
  readonly id: string
  readonly app: string
  /** The stream name without its query: a stream key for publishers. */
  readonly name: string
  readonly query: Readonly<Record<string, unknown>>
  /** Ends the connection at once (a refusal, terminate, suspend). */
  drop(): void
}

export interface RtmpPublisher extends RtmpClient {
  meta(): PublishMeta
  /** `fn` runs once when the connection is gone; clean = the client sent deleteStream first. */
  onEnd(fn: (clean: boolean) => void): void
  /** Ends every player of the stream (they would otherwise wait for a publisher that is gone). */
  endPlayers(): void
}

export interface RtmpListenerHooks {
  /** A client asks to publish: keep it, or refuse it with drop(). Runs inside NMS's dispatch. */
  publish(p: RtmpPublisher): void
  /** A client asks to play: keep it, or refuse it with drop(). */
  play(p: RtmpClient): void
  /** NMS's lines about this listener's connections (and its server errors), redacted. */
  log(level: NmsLogLevel, line: string): void
}

/** What a socket of a listener leads to: the hooks NMS's events and lines are given to. */
interface Owner {
  readonly hooks: RtmpListenerHooks
  /** False once the listener closed (its last sockets may still say something). */
  open: boolean
}

/** Sessions are matched to listeners by the identity of their socket. */
const owners = new WeakMap<Socket, Owner>()

/**
 * The owner of the socket that is dispatching an event right now. NMS's RTMP session code logs
 * synchronously inside its socket handlers (data: handshake, commands, media; close; error), and
 * its logger is one global object, so this is how a line finds the studio it belongs to.
 */
let dispatching: Owner | undefined

/** NMS's debug and trace levels are per-packet noise. */
const FORWARDED = new Set<string>(['info', 'warn', 'error'])

// NMS: src/core/logger.js exports one Logger instance whose info/warn/error/debug/trace all call
// this.log(message, level), which console.logs unredacted lines (stream keys) to stdout. Replacing
// the instance's log is the one place all NMS lines pass; a line goes to the listener whose socket
// is dispatching, or nowhere (never to another studio, never to stdout).
logger.log = (message: unknown, level: unknown = 'info'): void => {
  const owner = dispatching
  if (!owner || typeof level !== 'string' || !FORWARDED.has(level)) return
  owner.hooks.log(level as NmsLogLevel, redactNmsLine(String(message)))
}

const onPrePublish = (s: NmsSession): void => {
  const owner = owners.get(s.socket)
  if (owner?.open) owner.hooks.publish(publisherOf(s))
}
const onPrePlay = (s: NmsSession): void => {
  const owner = owners.get(s.socket)
  if (owner?.open) owner.hooks.play(clientOf(s))
}
let openListeners = 0

// NMS: BroadcastServer.postPublish and postPlay emit "prePublish" / "prePlay" with the session on
// the process-wide Context.eventEmitter, synchronously and before NMS registers the publisher or
// player, so a socket destroyed here never publishes or plays. One handler per event for the
// process (not one per studio: no MaxListeners warning with many studios), there while a listener
// is open (a re-evaluated module, as in test runners, leaves none behind); the socket says whose.
function listenerOpened(): void {
  if (openListeners++ > 0) return
  Context.eventEmitter.on('prePublish', onPrePublish)
  Context.eventEmitter.on('prePlay', onPrePlay)
}
function listenerClosed(): void {
  if (--openListeners > 0) return
  Context.eventEmitter.off('prePublish', onPrePublish)
  Context.eventEmitter.off('prePlay', onPrePlay)
}

function clientOf(s: NmsSession): RtmpClient {
  return {
    id: s.id,
    app: s.streamApp,
    name: s.streamName,
    query: s.streamQuery ?? {},
    drop: () => s.socket.destroy()
  }
}

const num = (v: unknown): number => Number(v) || 0

function publisherOf(s: NmsSession): RtmpPublisher {
  // NMS: BroadcastServer keeps a gone publisher's path for publishGraceMs (30 s) before
  // donePublish, and refuses anyone else on it meanwhile. The studio's own resume window replaces
  // that: the path is free at once (refused publishers included, so they never hold it). Set per
  // broadcast, since NMS has no setting for it.
  s.broadcast.publishGraceMs = 0
  let clean = false
  // NMS: Rtmp.onDeleteStream (protocol/rtmp.js) is an empty method called on the "deleteStream"
  // command, which is how an RTMP client says it is done: note a clean stop and end the socket
  // (NMS would wait for the client to hang up).
  s.rtmp.onDeleteStream = () => {
    clean = true
    s.socket.end()
  }
  return {
    ...clientOf(s),
    meta: () => ({
      audioCodec: num(s.audioCodec),
      videoCodec: num(s.videoCodec),
      width: num(s.videoWidth),
      height: num(s.videoHeight),
      videoKbps: num(s.videoDatarate)
    }),
    onEnd: (fn) => s.socket.once('close', () => fn(clean)),
    // NMS: the broadcast's subscribers are its player sessions; their close() ends their sockets.
    endPlayers: () => {
      for (const sub of s.broadcast.subscribers.values()) sub.close()
    }
  }
}

/** NMS's RTMP server on one port, for one studio. */
export class RtmpListener {
  private server?: NodeRtmpServer
  private owner?: Owner
  private readonly sockets = new Set<Socket>()
  private boundPort = 0

  constructor(
    private readonly host: string,
    private readonly hooks: RtmpListenerHooks
  ) {}

  get port(): number {
    return this.boundPort
  }

  /**
   * Listens on `port` (0 = any free port) and resolves with the port; a busy port rejects with an
   * error naming it (code EADDRINUSE), where NMS's own run() would process.exit(1).
   */
  async listen(port: number): Promise<number> {
    // NMS: the server's constructor reads the process-wide Context.config and creates tcpServer
    // only when rtmp.port is set; that port is otherwise unused (we never call run(), which listens
    // with an error handler that exits the process). No auth section: postPublish/postPlay would
    // demand signed URLs. Each studio writes the same value, so sharing it is harmless.
    Context.config = { rtmp: { port: 1935 } }
    const server = new NodeRtmpServer()
    // NMS: tcpServer is the net.Server it made with its connection handler (handleRequest, which
    // makes an RtmpSession on the socket); we listen on it ourselves, and see each socket first.
    const tcp = server.tcpServer
    if (!tcp) throw new Error('node-media-server made no RTMP server (see nms-adapter.ts)')
    // One owner per listen: a restarted listener's late lines from old sockets still reach us.
    const owner: Owner = { hooks: this.hooks, open: true }
    tcp.prependListener('connection', (socket: Socket) => this.adopt(socket, owner))
    this.boundPort = await listen(tcp, this.host, port, 'RTMP')
    tcp.on('error', (e) => this.hooks.log('error', `RTMP server error: ${e.message}`))
    this.server = server
    this.owner = owner
    listenerOpened()
    return this.boundPort
  }

  /** Closes the port and destroys every connection; resolves once the port is closed. */
  async close(): Promise<void> {
    const tcp = this.server?.tcpServer
    if (!tcp || !this.owner) return
    this.server = undefined
    this.owner.open = false
    listenerClosed()
    const closed = new Promise<void>((resolve) => tcp.close(() => resolve()))
    for (const s of this.sockets) s.destroy()
    await closed
  }

  /** Runs every event of a socket of ours with `dispatching` set, so NMS's lines find us. */
  private adopt(socket: Socket, owner: Owner): void {
    owners.set(socket, owner)
    this.sockets.add(socket)
    socket.once('close', () => this.sockets.delete(socket))
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean
    socket.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
      const outer = dispatching
      dispatching = owner
      try {
        return emit(event, ...args)
      } finally {
        dispatching = outer
      }
    }) as Socket['emit']
  }
}
