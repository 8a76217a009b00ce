import type { ReactNode } from 'react'
import type { ClipView } from '../../../../shared/contract'
import { formatDuration } from '../../lib/format'

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
      return `Failed: ${c.error ?? 'the service gave no reason'}`
  }
}

/** A clip's actions once ready: play it in the player, save its MP4. */
export function ClipActions({
  clip,
  onPlay,
  onSave
}: {
  clip: ClipView
  onPlay: (c: ClipView) => void
  onSave: (c: ClipView) => void
}): ReactNode {
  if (clip.state !== 'ready') return null
  return (
    <>
      {clip.playbackUrl && (
        <button
          type="button"
          className="secondary"
          data-testid="clip-play"
          aria-label={`Play clip ${clip.name}`}
          onClick={() => onPlay(clip)}
        >
          Play
        </button>
      )}
      {clip.downloadUrl && (
        <button
          type="button"
          className="secondary"
          data-testid="clip-save"
          aria-label={`Save MP4 of clip ${clip.name}`}
          onClick={() => onSave(clip)}
        >
          Save MP4
        </button>
      )}
    </>
  )
}
