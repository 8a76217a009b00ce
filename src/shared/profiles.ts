// Transcoding profiles: presets and the service's own validation rules (Livepeer Studio's ffmpeg-profile
// schema plus its two server checks), shared by the renderer (validate before sending) and the local studio.

export interface Profile {
  name: string
  width: number
  height: number
  bitrate: number // bits per second
  fps: number // 0 = keep the source's frame rate
  fpsDen?: number
  gop?: string // seconds as a string ("2.0"), "0" or "intra"
  profile?: 'H264Baseline' | 'H264Main' | 'H264High' | 'H264ConstrainedHigh'
  encoder?: 'H.264'
  quality?: number
}

/** The recommended set of the contract: 720p, 480p and 360p. */
export const RECOMMENDED_PROFILES: readonly Profile[] = [
  { name: '720p', width: 1280, height: 720, bitrate: 3_000_000, fps: 30 },
  { name: '480p', width: 854, height: 480, bitrate: 1_600_000, fps: 30 },
  { name: '360p', width: 640, height: 360, bitrate: 800_000, fps: 30 }
]

/** Livepeer Studio's default ladder (what its API applies when profiles are omitted). */
export const STUDIO_DEFAULT_PROFILES: readonly Profile[] = [
  { name: '240p0', width: 426, height: 240, bitrate: 250_000, fps: 0 },
  { name: '360p0', width: 640, height: 360, bitrate: 800_000, fps: 0 },
  { name: '480p0', width: 854, height: 480, bitrate: 1_600_000, fps: 0 },
  { name: '720p0', width: 1280, height: 720, bitrate: 3_000_000, fps: 0 }
]

export interface ProfileIssue {
  /** Dotted path: `profiles.1.width`. */
  field: string
  /** The rule, in words: `width must be at least 128`. */
  message: string
  /** 422 for schema rules, 400 for the service's name rules; as the service answers. */
  status: 400 | 422
}

const H264_PROFILES = ['H264Baseline', 'H264Main', 'H264High', 'H264ConstrainedHigh']
const KNOWN_KEYS = new Set([
  'name',
  'width',
  'height',
  'bitrate',
  'fps',
  'fpsDen',
  'gop',
  'profile',
  'encoder',
  'quality'
])

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v)

function checkInt(
  p: Record<string, unknown>,
  key: string,
  min: number,
  path: string,
  out: ProfileIssue[],
  required: boolean,
  max?: number
): void {
  const v = p[key]
  if (v === undefined) {
    if (required) out.push({ field: `${path}.${key}`, message: `${key} is required`, status: 422 })
    return
  }
  if (!isInt(v)) {
    out.push({ field: `${path}.${key}`, message: `${key} must be a whole number`, status: 422 })
  } else if (v < min) {
    out.push({ field: `${path}.${key}`, message: `${key} must be at least ${min}`, status: 422 })
  } else if (max !== undefined && v > max) {
    out.push({ field: `${path}.${key}`, message: `${key} must be at most ${max}`, status: 422 })
  }
}

/**
 * Every issue with a profiles array, in the order the service would find them: schema rules (422)
 * first, then the name rules (400). Empty array = valid. The service stops at the schema errors;
 * `all` also applies the name rules to the rows that have a name, so a form can show every problem
 * at once (a duplicate name beside a bad width).
 */
export function validateProfiles(
  profiles: unknown,
  path = 'profiles',
  opts: { all?: boolean } = {}
): ProfileIssue[] {
  const out: ProfileIssue[] = []
  if (profiles === null || profiles === undefined) return out
  if (!Array.isArray(profiles)) {
    return [{ field: path, message: 'profiles must be a list', status: 422 }]
  }
  profiles.forEach((raw, i) => {
    const at = `${path}.${i}`
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      out.push({ field: at, message: 'each profile must be an object', status: 422 })
      return
    }
    const p = raw as Record<string, unknown>
    for (const k of Object.keys(p)) {
      if (!KNOWN_KEYS.has(k))
        out.push({ field: `${at}.${k}`, message: `unknown field "${k}"`, status: 422 })
    }
    if (p.name === undefined)
      out.push({ field: `${at}.name`, message: 'name is required', status: 422 })
    else if (typeof p.name !== 'string')
      out.push({ field: `${at}.name`, message: 'name must be text', status: 422 })
    else if (p.name.length < 1 || p.name.length > 500)
      out.push({ field: `${at}.name`, message: 'name must be 1 to 500 characters', status: 422 })
    checkInt(p, 'width', 128, at, out, true)
    checkInt(p, 'height', 128, at, out, true)
    checkInt(p, 'bitrate', 400, at, out, true)
    checkInt(p, 'fps', 0, at, out, true)
    checkInt(p, 'fpsDen', 1, at, out, false)
    checkInt(p, 'quality', 0, at, out, false, 44)
    if (p.gop !== undefined && typeof p.gop !== 'string')
      out.push({ field: `${at}.gop`, message: 'gop must be text such as "2.0"', status: 422 })
    if (p.profile !== undefined && !H264_PROFILES.includes(p.profile as string))
      out.push({
        field: `${at}.profile`,
        message: `profile must be one of ${H264_PROFILES.join(', ')}`,
        status: 422
      })
    if (p.encoder !== undefined && p.encoder !== 'H.264')
      out.push({ field: `${at}.encoder`, message: 'encoder must be "H.264"', status: 422 })
  })
  if (out.length > 0 && !opts.all) return out
  const seen = new Set<string>()
  profiles.forEach((raw, i) => {
    const name = (raw as Partial<Profile> | null)?.name
    if (typeof name !== 'string' || name === '') return
    if (name === 'source')
      out.push({
        field: `${path}.${i}.name`,
        message: 'profile cannot be named "source"',
        status: 400
      })
    else if (seen.has(name))
      out.push({
        field: `${path}.${i}.name`,
        message: `duplicate profile name "${name}"`,
        status: 400
      })
    seen.add(name)
  })
  return out
}

/** Sum of the renditions' bitrates, bits per second. */
export const ladderBitrate = (profiles: readonly Profile[]): number =>
  profiles.reduce((sum, p) => sum + p.bitrate, 0)
