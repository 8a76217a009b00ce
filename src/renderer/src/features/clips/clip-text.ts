// A clip's state in words (LiveMoments.tsx and SessionMoments.tsx show it): main sends the state and,
// for a failed clip, why (ClipFailure); the sentence is written here. Pure, so tested in Node.
import type { ClipFailure, ClipView } from '../../../../shared/contract'
import { formatDuration } from '../../lib/format'

/** Why a clip failed (also the player's, for a clip that could not be processed). */
export function clipFailureText(f: ClipFailure | undefined): string {
  switch (f?.kind) {
    case 'service':
      return f.message
    case 'phase':
      return `The service says the clip is ${f.phase}.`
    case 'gone':
      return 'The service says the clip is gone.'
    case undefined:
      return 'the service gave no reason'
  }
}

/** A clip's state in words: "Waiting for the last seconds…", "Cutting…", "Ready, 0:31", "Failed: …". */
export function clipStateText(c: ClipView): string {
  switch (c.state) {
    case 'waiting':
      return 'Waiting for the last seconds to reach the service…'
    case 'processing':
      return 'Cutting…'
    case 'ready':
      return c.duration === undefined ? 'Ready' : `Ready, ${formatDuration(c.duration)}`
    case 'failed':
      return `Failed: ${clipFailureText(c.failure)}`
  }
}
