import type { ReactNode } from 'react'
import type { ClipView } from '../../../../shared/contract'

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
