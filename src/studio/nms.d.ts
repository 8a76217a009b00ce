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
