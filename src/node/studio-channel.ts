// The typed message channel between the app and its local-studio child (child_process IPC: the same
// on Windows, macOS and Linux, and under Electron's ELECTRON_RUN_AS_NODE). The studio says "ready"
// (with its addresses and, on a first run, its API key) or "failed" (with the reason); the app says
// "stop". The channel closing is the app's death: the studio then stops by itself.

export type StudioToApp =
  | { type: 'ready'; api: string; rtmp: string; apiKey?: string }
  | { type: 'failed'; reason: string; code?: string }

export type AppToStudio = { type: 'stop' }

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0

/** Checks what arrived on the channel instead of trusting a cast; undefined for anything else. */
export function parseStudioMessage(m: unknown): StudioToApp | undefined {
  if (typeof m !== 'object' || m === null) return undefined
  const x = m as Record<string, unknown>
  if (x.type === 'ready' && isText(x.api) && isText(x.rtmp)) {
    if (x.apiKey !== undefined && !isText(x.apiKey)) return undefined
    return { type: 'ready', api: x.api, rtmp: x.rtmp, ...(x.apiKey ? { apiKey: x.apiKey } : {}) }
  }
  if (x.type === 'failed' && isText(x.reason))
    return { type: 'failed', reason: x.reason, ...(isText(x.code) ? { code: x.code } : {}) }
  return undefined
}

export const isStopMessage = (m: unknown): m is AppToStudio =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === 'stop'
