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

const FIELD_LABELS: Record<string, string> = {
  name: 'name',
  width: 'width',
  height: 'height',
  bitrate: 'bitrate',
  fps: 'frame rate'
}

/**
 * An issue in the creator's words: the row as it is labelled on screen ("Profile 2"), the field as it
 * is labelled, and numbers in the unit of the field (the form shows kbps; the wire is bit/s).
 */
export function describeIssue(i: Pick<ProfileIssue, 'field' | 'message'>): {
  where: string
  message: string
} {
  const m = /^profiles\.(\d+)(?:\.(\w+))?$/.exec(i.field)
  const labels: Record<string, string> = { name: 'Name', profiles: 'Profiles' }
  if (!m) return { where: labels[i.field] ?? i.field, message: i.message }
  const key = m[2]
  let message = i.message
  if (key === 'bitrate')
    message = message.replace(/(at (?:least|most)) (\d+)$/, (_all, rule: string, bps: string) => {
      return `${rule} ${Number(bps) / 1000} kbps`
    })
  if (key && FIELD_LABELS[key])
    message = message.replace(new RegExp(`^${key}\\b`), FIELD_LABELS[key])
  return { where: `Profile ${Number(m[1]) + 1}`, message }
}

export function checkRows(rows: readonly ProfileRow[]): CheckedRows {
  const payload = rowsToPayload(rows)
  // Every problem at once, the duplicate names included (the service would stop at the first kind).
  const issues = validateProfiles(payload, 'profiles', { all: true })
  return { profiles: issues.length ? [] : (payload as unknown as Profile[]), issues }
}
