// H.264 as Matroska wants it: encoders (x264, NVENC, Quick Sync, VA-API ...) hand out Annex B
// (start codes before each NAL unit) and their SPS/PPS as Annex B extradata; Matroska's
// V_MPEG4/ISO/AVC takes an AVCDecoderConfigurationRecord (avcC) as CodecPrivate and NAL units each
// prefixed by a 4-byte length. An encoder that already hands out avcC (it starts with version 1)
// is taken as it is.

/** The NAL units of an Annex B buffer (without their start codes). */
export function annexBUnits(buf: Buffer): Buffer[] {
  const units: Buffer[] = []
  let start = -1
  let i = 0
  while (i + 2 < buf.length) {
    if (buf[i] === 0 && buf[i + 1] === 0 && buf[i + 2] === 1) {
      if (start >= 0) {
        // A 4-byte start code's leading zero belongs to it, not to the unit before.
        let end = i
        while (end > start && buf[end - 1] === 0) end--
        units.push(buf.subarray(start, end))
      }
      i += 3
      start = i
    } else i++
  }
  if (start >= 0 && start < buf.length) units.push(buf.subarray(start))
  return units
}

const isAnnexB = (buf: Buffer): boolean =>
  buf.length > 3 && buf[0] === 0 && buf[1] === 0 && (buf[2] === 1 || (buf[2] === 0 && buf[3] === 1))

/** The avcC record from the encoder's extradata (Annex B SPS/PPS, or avcC already). */
export function avcConfig(extradata: Buffer): Buffer {
  if (!isAnnexB(extradata)) {
    if (extradata[0] === 1) return extradata
    throw new Error('the encoder gave no H.264 parameter sets')
  }
  const units = annexBUnits(extradata)
  const sps = units.filter((u) => ((u[0] ?? 0) & 0x1f) === 7)
  const pps = units.filter((u) => ((u[0] ?? 0) & 0x1f) === 8)
  const first = sps[0]
  if (!first || first.length < 4 || !pps.length)
    throw new Error('the encoder gave no H.264 parameter sets')
  const parts: Buffer[] = [
    // version, profile, compatibility, level, 4-byte lengths (0xff), SPS count
    Buffer.from([1, first[1] ?? 0, first[2] ?? 0, first[3] ?? 0, 0xff, 0xe0 | sps.length])
  ]
  const withLength = (u: Buffer): Buffer => {
    const l = Buffer.alloc(2)
    l.writeUInt16BE(u.length)
    return Buffer.concat([l, u])
  }
  parts.push(...sps.map(withLength), Buffer.from([pps.length]), ...pps.map(withLength))
  // High profiles (100+) carry chroma format and bit depths: 4:2:0, 8 bits, no SPS extensions.
  if ((first[1] ?? 0) >= 100) parts.push(Buffer.from([0xfc | 1, 0xf8, 0xf8, 0]))
  return Buffer.concat(parts)
}

/**
 * One packet as Matroska stores it: each NAL unit prefixed by its 4-byte length. Access unit
 * delimiters are left out; parameter sets an encoder repeats in-band stay (a decoder takes them).
 */
export function avcSample(packet: Buffer): Buffer {
  if (!isAnnexB(packet)) return packet
  const units = annexBUnits(packet).filter((u) => {
    const type = (u[0] ?? 0) & 0x1f
    return type !== 9 && u.length > 0
  })
  const out = Buffer.alloc(units.reduce((n, u) => n + 4 + u.length, 0))
  let at = 0
  for (const u of units) {
    out.writeUInt32BE(u.length, at)
    u.copy(out, at + 4)
    at += 4 + u.length
  }
  return out
}
