// Every touch of node-media-server's internals lives in this file (with its typings in nms.d.ts):
// NMS 4.x ships no types and no API for embedding its RTMP server in another program, so we reach
// into its modules. The version is pinned exactly in package.json; an upgrade is reviewed here and
// in nms.d.ts, nowhere else. Each touch is marked "NMS:" with what it relies on and why.
//
// What ingest.ts gets: RtmpListener, NMS's RTMP protocol code on a port we bind ourselves, which
// hands over the publishers and players that arrive on *its* port and only *its* NMS log lines,
// redacted. Several listeners can share a process (tests run several studios in one), although
// NMS keeps its state (config, sessions, broadcasts, events, logger) in process-wide singletons.
//
// It also bounds what a connection may cost before it publishes (see INGEST_BOUNDS and
// docs/security.md): NMS allocates every message length a chunk header declares (up to 16 MiB,
// for each of up to ~65k chunk stream ids) and never times a connection out, so a few KB of
// random bytes held a GB and idle connections used up the process's descriptors.
import type { Socket } from 'node:net'
import Context from 'node-media-server/src/core/context.js'
import logger from 'node-media-server/src/core/logger.js'
import Rtmp from 'node-media-server/src/protocol/rtmp.js'
import NodeRtmpServer from 'node-media-server/src/server/rtmp_server.js'
import { descriptorLimit } from '../node/fd-limit'
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
  broadcast: {
    publishGraceMs: number
    subscribers: Map<string, { close: () => void }>
    /**
     * NMS: the stream's FLV tags from its latest video keyframe on (null before one came), which
     * postPlay sends a new player right after "prePlay": where that player's media begins.
     */
    flvGopCache?: Set<Buffer> | null
  }
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
  /**
   * A player: the publisher's media time (ms, its FLV timestamps) it is sent from: the ingest hands a
   * new player the stream from its latest keyframe. Undefined for a publisher, or before a keyframe.
   */
  readonly startMs?: number
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
  /** Connections the bounds closed since the last line said so (a flood is one line, not 10k). */
  closed: { count: number; first: string; loggedAt: number }
}

/**
 * What one RTMP connection may cost (docs/security.md says why each number). Before a connection
 * publishes or plays it has only sent a handshake and a few small commands, so it gets little;
 * once the studio took its stream key (or it is the studio's own player) it gets room for media.
 */
export const INGEST_BOUNDS = {
  /** The first byte (C0) of every RTMP connection: the protocol version, 3. */
  version: 3,
  /** Handshake (C0, C1, C2: 3,073 bytes) done within this long of connecting. */
  handshakeMs: 5_000,
  /** Publishing or playing within this long of the handshake (connect, createStream, publish). */
  greetingMs: 10_000,
  /** Before publish or play, a connection silent for this long is closed. */
  greetingIdleMs: 5_000,
  /** A publisher or player that neither sends nor receives for this long is closed. */
  mediaIdleMs: 30_000,
  /** Longest message a connection may declare before publish or play (commands are < 1 KB). */
  greetingMessageBytes: 64 * 1024,
  /** Longest message once publishing: any real keyframe fits (a 4K intra frame is ~1-2 MB). */
  mediaMessageBytes: 4 * 1024 * 1024,
  /** Message buffers a connection may hold in all, before and after publish or play. */
  greetingBufferedBytes: 256 * 1024,
  mediaBufferedBytes: 16 * 1024 * 1024,
  /** Chunk stream ids one connection may use (encoders use fewer than ten). */
  chunkStreams: 32,
  /** Connections at once: a quarter of the descriptor limit, 16 to 1,024 (see connectionCap). */
  maxConnections: 1024,
  minConnections: 16
} as const

/**
 * The most RTMP connections the studio holds at once: a quarter of the process's descriptor
 * limit, so that sockets of the API, SQLite and the pipes to ffmpeg always find a descriptor
 * (1,024 -> 256; macOS's default 256 -> 64; Windows has no such limit -> 1,024).
 */
export function connectionCap(limit: number | undefined): number {
  const { maxConnections, minConnections } = INGEST_BOUNDS
  if (limit === undefined) return maxConnections
  return Math.max(minConnections, Math.min(maxConnections, Math.floor(limit / 4)))
}

/** One connection's standing against INGEST_BOUNDS. */
interface Guard {
  socket: Socket
  owner: Owner
  /** Published or played: the media bounds apply. */
  admitted: boolean
  /** The version byte was checked. */
  greeted: boolean
  shaken: boolean
  /** Bytes of message buffers NMS holds for this connection. */
  buffered: number
  /** Closed by a bound: NMS's lines about it are not forwarded (a flood is not 10k lines). */
  refused: boolean
  timer?: NodeJS.Timeout
}

const guards = new WeakMap<Socket, Guard>()

/** Thrown inside NMS's parser by a bound: unwinds it to our parserData, which closes the socket. */
class Refusal extends Error {}

/** Closes a connection that broke a bound; the listener hears of it, at most one line in 10 s. */
function refuse(g: Guard, why: string): void {
  if (g.socket.destroyed) return
  g.refused = true
  g.socket.destroy()
  const c = g.owner.closed
  if (c.count++ === 0) c.first = why
  const now = Date.now()
  if (now - c.loggedAt < 10_000) return
  g.owner.hooks.log(
    'warn',
    c.count === 1
      ? `closed a connection: ${why}`
      : `closed ${c.count} connections that broke the ingest's bounds (the first: ${c.first})`
  )
  c.count = 0
  c.loggedAt = now
}

function arm(g: Guard, ms: number, why: string): void {
  clearTimeout(g.timer)
  g.timer = setTimeout(() => refuse(g, why), ms)
}

function admit(socket: Socket): void {
  const g = guards.get(socket)
  if (!g || g.admitted || socket.destroyed) return
  g.admitted = true
  clearTimeout(g.timer)
  socket.setTimeout(INGEST_BOUNDS.mediaIdleMs)
}

/**
 * The owner and guard of the socket that is dispatching an event right now. NMS's RTMP session
 * code logs and parses synchronously inside its socket handlers (data: handshake, commands, media;
 * close; error), and its logger is one global object, so this is how a line finds the studio it
 * belongs to, and how NMS's parser finds the bounds of the connection whose bytes it reads.
 */
let dispatching: { owner: Owner; guard: Guard } | undefined

// NMS: Rtmp (protocol/rtmp.js) reads a connection's bytes in parserData, which runs the handshake
// and then chunkRead; chunkRead calls packetParse when a chunk header is complete (the chunk stream
// is found or made in inPackets) and packetAlloc when a message starts (its buffer grows to the
// declared header.length, zero-filled). Wrapping these three on the prototype puts the bounds
// where NMS allocates, without a parser of our own. A bound throws a Refusal out of NMS's parser
// (it keeps no state we need after that), caught here and the socket destroyed. Connections that
// are not a listener's (none in the studio) pass untouched.
// NMS's own methods are kept on the prototype the first time, so that a re-evaluated module (test
// runners) wraps them again rather than the previous wrappers; the last one wins, as for the logger.
const ORIGINALS = Symbol.for('onair.nms-adapter.rtmp')
type Parser = Pick<Rtmp, 'parserData' | 'packetParse' | 'packetAlloc'>
const proto = Rtmp.prototype as Rtmp & { [ORIGINALS]?: Parser }
const nms: Parser = (proto[ORIGINALS] ??= {
  parserData: proto.parserData,
  packetParse: proto.packetParse,
  packetAlloc: proto.packetAlloc
})
const nmsParserData = nms.parserData
const nmsPacketParse = nms.packetParse
const nmsPacketAlloc = nms.packetAlloc

Rtmp.prototype.parserData = function (this: Rtmp, buffer: Buffer): string | null {
  const g = dispatching?.guard
  if (!g) return nmsParserData.call(this, buffer)
  if (g.socket.destroyed) return null
  if (!g.greeted && buffer.length > 0) {
    g.greeted = true
    if (buffer[0] !== INGEST_BOUNDS.version) {
      refuse(g, `not RTMP (first byte 0x${buffer[0]!.toString(16).padStart(2, '0')})`)
      return null
    }
  }
  try {
    const out = nmsParserData.call(this, buffer)
    // NMS: handshakeState 3 (RTMP_HANDSHAKE_2) = C0, C1 and C2 read.
    if (!g.shaken && this.handshakeState === 3) {
      g.shaken = true
      if (!g.admitted) arm(g, INGEST_BOUNDS.greetingMs, 'did not publish in time')
    }
    return out
  } catch (err) {
    // A bound, or bytes NMS's parser cannot take (it would have thrown out of the socket's data
    // event and ended the process): either way only this connection ends.
    refuse(g, err instanceof Refusal ? err.message : `unreadable RTMP (${(err as Error).message})`)
    return null
  }
}

Rtmp.prototype.packetParse = function (this: Rtmp): void {
  nmsPacketParse.call(this)
  const g = dispatching?.guard
  if (g && this.inPackets.size > INGEST_BOUNDS.chunkStreams)
    throw new Refusal(`more than ${INGEST_BOUNDS.chunkStreams} chunk streams`)
}

Rtmp.prototype.packetAlloc = function (this: Rtmp): void {
  const g = dispatching?.guard
  if (!g) return nmsPacketAlloc.call(this)
  const p = this.parserPacket
  const b = INGEST_BOUNDS
  const maxMessage = g.admitted ? b.mediaMessageBytes : b.greetingMessageBytes
  if (p.header.length > maxMessage)
    throw new Refusal(`a message of ${p.header.length} bytes (at most ${maxMessage} here)`)
  const before = p.capacity
  // NMS: it allocates header.length + 1024 when the buffer is smaller than the message.
  if (before < p.header.length) {
    const after = g.buffered - before + p.header.length + 1024
    const maxBuffered = g.admitted ? b.mediaBufferedBytes : b.greetingBufferedBytes
    if (after > maxBuffered)
      throw new Refusal(`${after} bytes of messages held (at most ${maxBuffered} here)`)
  }
  nmsPacketAlloc.call(this)
  g.buffered += p.capacity - before
}

/** NMS's debug and trace levels are per-packet noise. */
const FORWARDED = new Set<string>(['info', 'warn', 'error'])

// NMS: src/core/logger.js exports one Logger instance whose info/warn/error/debug/trace all call
// this.log(message, level), which console.logs unredacted lines (stream keys) to stdout. Replacing
// the instance's log is the one place all NMS lines pass; a line goes to the listener whose socket
// is dispatching, or nowhere (never to another studio, never to stdout); none about a connection
// the bounds closed.
logger.log = (message: unknown, level: unknown = 'info'): void => {
  const owner = dispatching?.owner
  if (!owner || typeof level !== 'string' || !FORWARDED.has(level)) return
  if (dispatching?.guard.refused) return
  owner.hooks.log(level as NmsLogLevel, redactNmsLine(String(message)))
}

// A client the hooks kept (its socket still open) publishes or plays: the media bounds apply.
const onPrePublish = (s: NmsSession): void => {
  const owner = guards.get(s.socket)?.owner
  if (owner?.open) owner.hooks.publish(publisherOf(s))
  admit(s.socket)
}
const onPrePlay = (s: NmsSession): void => {
  const owner = guards.get(s.socket)?.owner
  if (owner?.open) owner.hooks.play({ ...clientOf(s), startMs: gopStartMs(s) })
  admit(s.socket)
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

/** The timestamp (ms) of an FLV tag: 24 bits at bytes 4-6, their upper 8 bits at byte 7. */
export function flvTagMs(tag: Uint8Array): number | undefined {
  if (tag.length < 8) return undefined
  return ((tag[7]! << 24) | (tag[4]! << 16) | (tag[5]! << 8) | tag[6]!) >>> 0
}

/** Where a new player's media begins: the first tag NMS will send it from the stream's GOP cache. */
function gopStartMs(s: NmsSession): number | undefined {
  const first = s.broadcast?.flvGopCache?.values().next().value
  return first ? flvTagMs(first) : undefined
}

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
  /** Open connections, oldest first. */
  private readonly sockets = new Set<Socket>()
  private boundPort = 0
  private cap: number = INGEST_BOUNDS.maxConnections

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
    const owner: Owner = {
      hooks: this.hooks,
      open: true,
      closed: { count: 0, first: '', loggedAt: 0 }
    }
    tcp.prependListener('connection', (socket: Socket) => this.adopt(socket, owner))
    this.cap = connectionCap(await descriptorLimit())
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

  /**
   * At the connection cap, a new connection takes the place of the oldest one that is not
   * publishing or playing yet (a flood of idle connections cannot keep an encoder out for long:
   * each new one pushes out the oldest); when all of them are, the new one is closed.
   */
  private makeRoom(guard: Guard): void {
    if (this.sockets.size < this.cap) return
    for (const s of this.sockets) {
      const g = guards.get(s)
      if (g && !g.admitted) return refuse(g, `${this.cap} RTMP connections open (the cap)`)
    }
    refuse(guard, `${this.cap} RTMP connections publishing or playing (the cap)`)
  }

  /**
   * Puts a new socket under the bounds (before NMS's session is made on it) and runs every event
   * of it with `dispatching` set, so NMS's lines find us and its parser finds the bounds.
   */
  private adopt(socket: Socket, owner: Owner): void {
    const guard: Guard = {
      socket,
      owner,
      admitted: false,
      greeted: false,
      shaken: false,
      buffered: 0,
      refused: false
    }
    guards.set(socket, guard)
    this.makeRoom(guard)
    arm(guard, INGEST_BOUNDS.handshakeMs, 'no RTMP handshake in time')
    socket.setTimeout(INGEST_BOUNDS.greetingIdleMs)
    socket.on('timeout', () => refuse(guard, 'idle'))
    this.sockets.add(socket)
    socket.once('close', () => {
      clearTimeout(guard.timer)
      this.sockets.delete(socket)
    })
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean
    const self = { owner, guard }
    socket.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
      const outer = dispatching
      dispatching = self
      try {
        return emit(event, ...args)
      } finally {
        dispatching = outer
      }
    }) as Socket['emit']
  }
}
