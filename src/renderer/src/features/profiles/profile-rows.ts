// The editor's rows are text (what the user typed); these turn them into profiles exactly as they would
// be sent, so validateProfiles judges the real payload and names the same fields the service would.
import { validateProfiles, type Profile, type ProfileIssue } from '../../../../shared/profiles'

export interface ProfileRow {
  key: number
  name: string
  width: string
  height: string
  bitrateKbps: string
  fps: string
}

let nextKey = 1

export const rowFromProfile = (p: Profile): ProfileRow => ({
  key: nextKey++,
  name: p.name,
  width: String(p.width),
  height: String(p.height),
  bitrateKbps: String(p.bitrate / 1000),
  fps: String(p.fps)
})

export const emptyRow = (): ProfileRow => ({
  key: nextKey++,
  name: '',
  width: '',
  height: '',
  bitrateKbps: '',
  fps: '30'
})

/** Empty text stays absent (the service then says "required"); anything else goes as a number. */
const num = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s.trim()))

export function rowsToPayload(rows: readonly ProfileRow[]): Record<string, unknown>[] {
  return rows.map((r) => {
    const kbps = num(r.bitrateKbps)
    const out: Record<string, unknown> = { name: r.name.trim() }
    if (r.name.trim() === '') delete out.name
    const w = num(r.width)
    const h = num(r.height)
    const fps = num(r.fps)
    if (w !== undefined) out.width = w
    if (h !== undefined) out.height = h
    // kbps in the form, bits per second on the wire; NaN stays NaN so it is reported, not rounded away.
    if (kbps !== undefined) out.bitrate = Number.isNaN(kbps) ? kbps : Math.round(kbps * 1000)
    if (fps !== undefined) out.fps = fps
    return out
  })
}

export interface CheckedRows {
  profiles: Profile[]
  issues: ProfileIssue[]
}

/** The form shows kbps, so a bitrate rule is restated in the unit on screen. */
const inFormUnits = (i: ProfileIssue): ProfileIssue =>
  i.field.endsWith('.bitrate') && /at least 400$/.test(i.message)
    ? { ...i, message: 'bitrate must be at least 400 bit/s (0.4 kbps)' }
    : i

export function checkRows(rows: readonly ProfileRow[]): CheckedRows {
  const payload = rowsToPayload(rows)
  const issues = validateProfiles(payload).map(inFormUnits)
  return { profiles: issues.length ? [] : (payload as unknown as Profile[]), issues }
}
