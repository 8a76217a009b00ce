// The player opens with sound. A browser may refuse to start a video with sound before the viewer has
// touched the page (its autoplay policy): then it plays muted, and the player offers "Click for sound".

/** How playback started: with sound, muted (sound was refused), or not at all (play is pressed by hand). */
export type Autoplay = 'sound' | 'muted' | 'stopped'

export async function playWithSound(el: HTMLVideoElement): Promise<Autoplay> {
  el.muted = false
  try {
    await el.play()
    return 'sound'
  } catch (e) {
    // Only the autoplay policy is answered by muting; anything else leaves the controls to the viewer.
    if ((e as DOMException)?.name !== 'NotAllowedError') return 'stopped'
  }
  el.muted = true
  try {
    await el.play()
    return 'muted'
  } catch {
    return 'stopped'
  }
}
