// The few node-media-server internals the ingest uses (the package ships no types). We use its RTMP
// server and sessions only: no HTTP-FLV server, no JSON store, no admin API.
declare module 'node-media-server/src/core/context.js' {
  import type { EventEmitter } from 'node:events'
  const Context: {
    config: Record<string, unknown>
    eventEmitter: EventEmitter
    broadcasts: Map<string, unknown>
    sessions: Map<string, unknown>
  }
  export = Context
}

declare module 'node-media-server/src/core/logger.js' {
  const logger: { log: (message: string, level?: string) => void }
  export = logger
}

declare module 'node-media-server/src/server/rtmp_server.js' {
  import type { Server, Socket } from 'node:net'
  class NodeRtmpServer {
    tcpServer: Server
    _sockets: Set<Socket>
  }
  export = NodeRtmpServer
}
