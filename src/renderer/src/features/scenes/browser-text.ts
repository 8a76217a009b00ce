// A browser source's words (the scenes panel shows them under its row): main says how its page stands
// as a state (shared/contract/browser-sources.ts BrowserSourceState), the sentence is written here, with
// the way out it offers. And its address as lists show it: the host only, since alert-box addresses
// carry tokens and a stream gets screenshotted (the whole address is shown only in its edit field).
// Pure, so tested in Node.
import type { BrowserSourceState } from '../../../../shared/contract'

export interface BrowserStateWords {
  text: string
  /** Something is wrong: shown as a problem. */
  problem: boolean
  /** The way out offered beside it: open the page again (Reload), or try the address again. */
  action?: 'reload' | 'retry'
}

/** How a browser source's page stands, in one sentence (undefined: no page asked for yet). */
export function browserStateText(s: BrowserSourceState | undefined): BrowserStateWords {
  switch (s?.kind) {
    case 'loading':
      return { text: 'Loading the page…', problem: false }
    case 'showing':
      return { text: 'Showing the page.', problem: false }
    case 'load-failed':
      return {
        text: `The page did not load (${s.detail.replace(/[.\s]+$/, '')}, ${s.code}). Check the address, or open it in a web browser to see whether it works; then try again.`,
        problem: true,
        action: 'retry'
      }
    case 'crashed':
      return {
        text: `The page stopped (${s.reason}). Reload starts it again.`,
        problem: true,
        action: 'reload'
      }
    case 'needs-desktop':
      return {
        text: 'Web pages are shown only in the Onair desktop app: here this source stays in the scene and draws nothing.',
        problem: false
      }
    case 'closed':
    case undefined:
      return { text: 'Not on screen: its page opens when a scene shows it.', problem: false }
  }
}

/** A browser source's address as lists show it: its host (and port), never its path or query. */
export function browserHost(url: string): string {
  try {
    return new URL(url).host || 'a web page'
  } catch {
    return 'a web page'
  }
}
