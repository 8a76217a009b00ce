// The file name a saved recording gets: "<stream name> <date>.mp4" (a rendition's: "<stream name>
// <date> 720p.mp4"), safe on Windows, macOS and Linux (no reserved characters or names, no trailing
// dot or space, not too long), dated in local time.

const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i

/** Characters no OS takes in a name, and spaces run together, made one space. */
const safe = (s: string): string =>
  s
    // eslint-disable-next-line no-control-regex -- control characters are exactly what must go
    .replace(/[<>:"/\\|?*\u0000-\u001f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()

export function recordingFileName(
  streamName: string | undefined,
  createdAt: number,
  rendition?: string
): string {
  const d = new Date(createdAt)
  const pad = (n: number): string => String(n).padStart(2, '0')
  // No colons: Windows does not allow them in file names.
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}.${pad(d.getMinutes())}`
  let name = safe(streamName ?? '')
    .replace(/[. ]+$/, '')
    .slice(0, 120)
  if (!name || RESERVED.test(name)) name = name ? `${name} recording` : 'Recording'
  const tag = rendition ? safe(rendition).slice(0, 40) : ''
  return `${name} ${date}${tag ? ` ${tag}` : ''}.mp4`
}
