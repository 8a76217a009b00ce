// The Connection screen's words for why the local studio is down (ConnectionScreen.tsx shows them):
// main says what happened as a state (shared/contract/connections.ts LocalStudioProblem), the
// sentence is written here. Pure, so tested in Node.
import type { LocalStudioProblem } from '../../../../shared/contract'

/** Why the local studio is down, as one sentence that names what failed. */
export function localProblemText(p: LocalStudioProblem | undefined): string {
  switch (p?.kind) {
    case 'crashed':
      return `The local studio stopped unexpectedly (${p.signal ?? `code ${p.code}`}); restarting.`
    case 'not-spawned':
      return `The local studio could not start: ${p.message.replace(/[.\s]+$/, '')}.`
    case 'start-failed':
      return p.message
    case undefined:
      return 'The local studio could not start.'
  }
}
