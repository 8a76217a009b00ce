// Types for the node-media-server internals that nms-adapter.ts uses (the package ships none):
// only that file imports these modules, and an NMS upgrade is reviewed there and here. We use its
// RTMP server and sessions only: no HTTP-FLV server, no JSON store, no admin API. (Ambient module
// declarations have to stay in a .d.ts: in a .ts module they would be augmentations of modules
// TypeScript cannot resolve.)
declare module 'node-media-server/src/core/context.js' {
  import type { EventEmitter } from 'node:events'
  const Context: {
    /** Read by NodeRtmpServer's constructor (rtmp.port) and by the publish/play checks (auth). */
    config: Record<string, unknown>
    /** Emits prePublish/prePlay (and others) with the session, process-wide. */
    eventEmitter: EventEmitter
  }
  export = Context
}

declare module 'node-media-server/src/core/logger.js' {
  /** One Logger for the process; every level goes through log(). */
  const logger: { log: (message: unknown, level?: unknown) => void }
  export = logger
}

declare module 'node-media-server/src/server/rtmp_server.js' {
  import type { Server } from 'node:net'
  class NodeRtmpServer {
    /** Made by the constructor only when Context.config.rtmp.port is set. */
    tcpServer?: Server
  }
  export = NodeRtmpServer
}

declare module 'node-media-server/src/protocol/rtmp.js' {
  /** The fields of a chunk stream's message being read: its declared length, its buffer's size. */
  interface RtmpPacket {
    header: { length: number }
    capacity: number
  }
  /** NMS's RTMP protocol state machine, one per connection (RtmpSession.rtmp). */
  class Rtmp {
    /** 0 before C0, 3 once C0, C1 and C2 are read (RTMP_HANDSHAKE_2). */
    handshakeState: number
    /** Every chunk stream id seen on the connection, with its message buffer. */
    inPackets: Map<number, RtmpPacket>
    /** The chunk stream whose header was just read. */
    parserPacket: RtmpPacket
    /** Reads bytes from the socket; a non-null return is an error. */
    parserData(buffer: Buffer): string | null
    /** A chunk header was read: finds or makes its chunk stream in inPackets. */
    packetParse(): void
    /** A message starts: grows parserPacket.payload to its declared length. */
    packetAlloc(): void
  }
  export = Rtmp
}
