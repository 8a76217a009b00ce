// The file name a saved recording gets: "<stream name> <date>.mp4", safe on Windows, macOS and Linux
// (no reserved characters or names, no trailing dot or space, not too long), dated in local time.

const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i

export function recordingFileName(streamName: string | undefined, createdAt: number): string {
  const d = new Date(createdAt)
  const pad = (n: number): string => String(n).padStart(2, '0')
  // No colons: Windows does not allow them in file names.
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}.${pad(d.getMinutes())}`
  let name = (streamName ?? '')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what must go
    .replace(/[<>:"/\\|?*\u0000-\u001f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[. ]+$/, '')
    .slice(0, 120)
  if (!name || RESERVED.test(name)) name = name ? `${name} recording` : 'Recording'
  return `${name} ${date}.mp4`
}
