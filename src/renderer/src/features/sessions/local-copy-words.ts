// What a session's "On this computer" row says of a copy Onair's death cut off: when, and how far it
// plays once the next start has finished it ("interrupted at 21:14, plays to 3:12"). Pure, with the
// time of day injected, so a test reads the words in any time zone.
import type { LocalRecordingView } from '../../../../shared/contract'
import { formatDuration, formatTimeOfDay } from '../../lib/format'

export function localCopyNote(
  rec: Pick<LocalRecordingView, 'state' | 'cutAt' | 'durationSec'>,
  at: (ms: number) => string = formatTimeOfDay
): string | undefined {
  if (rec.state !== 'interrupted') return undefined
  const cut =
    rec.cutAt === undefined ? 'interrupted when Onair closed' : `interrupted at ${at(rec.cutAt)}`
  return rec.durationSec === undefined
    ? `${cut}, being finished`
    : `${cut}, plays to ${formatDuration(rec.durationSec)}`
}
