// Types only: the services Onair talks to (the local studio, Livepeer Studio, a custom one), as the
// renderer may see them: never a key.

export type ConnectionKind = 'local' | 'livepeer' | 'custom'

/** What the renderer may know of a connection: never the key itself. */
export interface ConnectionView {
  id: string
  kind: ConnectionKind
  name: string
  baseUrl: string
  hasKey: boolean
  active: boolean
}

export interface AddConnectionArgs {
  kind: 'livepeer' | 'custom'
  name?: string
  baseUrl?: string // required for custom; livepeer defaults to https://livepeer.studio/api
  apiKey: string
}

export interface ConnectionStatus {
  active: ConnectionView | null
  /**
   * For the local studio: starting, ready or failed (with the reason). Its addresses stay the same
   * across launches; `moved` says when a remembered port was taken and the ingest address changed.
   */
  local: {
    state: 'stopped' | 'starting' | 'ready' | 'failed'
    error?: string
    api?: string
    rtmp?: string
    moved?: { what: 'ingest' | 'api'; from: string; to: string }[]
  }
}
