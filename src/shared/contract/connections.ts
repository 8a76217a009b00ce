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

/**
 * Why the local studio is down, as a state (the Connection screen words it:
 * features/connection/connection-text.ts): it stopped on its own after it was up and is being
 * started again ('crashed', with the exit's signal or code), it could not be started at all
 * ('not-spawned', the OS's words), or its start failed ('start-failed', that failure's own sentence).
 */
export type LocalStudioProblem =
  | { kind: 'crashed'; signal: string | null; code: number | null }
  | { kind: 'not-spawned'; message: string }
  | { kind: 'start-failed'; message: string }

export interface ConnectionStatus {
  active: ConnectionView | null
  /**
   * For the local studio: starting, ready or failed (with why). Its addresses stay the same
   * across launches; `moved` says when a remembered port was taken and the ingest address changed.
   */
  local: {
    state: 'stopped' | 'starting' | 'ready' | 'failed'
    /** failed: why, as a state (LocalStudioProblem), never main's sentence. */
    error?: LocalStudioProblem
    api?: string
    rtmp?: string
    moved?: { what: 'ingest' | 'api'; from: string; to: string }[]
  }
}
