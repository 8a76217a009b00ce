// Which stream the creator last went live on and last opened: what the Go live screen preselects
// (after the stream that is live now). Kept in the page's own storage: it is the UI's memory, per
// install, and nothing secret.
const LAST_LIVE = 'onair.lastLiveStreamId'
const LAST_OPENED = 'onair.lastOpenedStreamId'

const read = (key: string): string | undefined => {
  try {
    return localStorage.getItem(key) ?? undefined
  } catch {
    return undefined
  }
}
const write = (key: string, id: string): void => {
  try {
    localStorage.setItem(key, id)
  } catch {
    // Storage full or off: the preselection falls back to the newest stream.
  }
}

export const noteWentLive = (streamId: string): void => write(LAST_LIVE, streamId)
export const noteOpened = (streamId: string): void => write(LAST_OPENED, streamId)

/** In order: the stream live now, the one last gone live on, the one opened last. */
export function preferredStreamIds(liveNow?: string): string[] {
  return [liveNow, read(LAST_LIVE), read(LAST_OPENED)].filter((x): x is string => !!x)
}
