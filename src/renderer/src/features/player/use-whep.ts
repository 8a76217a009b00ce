// The live monitor by WHEP, where the service offers it: the playback info's `WebRTC (H264)` source
// ({base}/webrtc/{playbackId}) gets a recvonly offer; the answer's media plays in the same <video>.
// When the service offers no WHEP, refuses it (the local studio plays WHEP only while the stream is
// published by WHIP), or the peer does not connect within 5 s, the monitor plays HLS instead and says
// which.
import { useEffect, useState, type RefObject } from 'react'
import { useApi } from '../../lib/api'
import { playWithSound, type Autoplay } from './autoplay'

export const WEBRTC_HRN = 'WebRTC (H264)'
const CONNECT_MS = 5000

export type WhepState =
  | { kind: 'trying' }
  | { kind: 'playing'; autoplay: Autoplay }
  /** Not by WebRTC: why (the monitor plays HLS). */
  | { kind: 'unavailable'; why: string }

export function useWhep(
  video: RefObject<HTMLVideoElement | null>,
  playbackId: string | undefined
): WhepState {
  const api = useApi()
  const [state, setState] = useState<WhepState>(
    playbackId ? { kind: 'trying' } : { kind: 'unavailable', why: 'not a live stream' }
  )

  useEffect(() => {
    const el = video.current
    if (!playbackId || !el) return
    let disposed = false
    let pc: RTCPeerConnection | null = null
    let location: string | null = null
    let timer: ReturnType<typeof setTimeout> | undefined
    const give = (why: string): void => {
      if (disposed) return
      pc?.close()
      pc = null
      el.srcObject = null
      setState({ kind: 'unavailable', why })
    }
    void (async () => {
      const info = await api.getPlayback(playbackId)
      if (disposed) return
      const src = info.ok ? info.value.sources.find((s) => s.hrn === WEBRTC_HRN) : undefined
      if (!src) return give('the service offers no WebRTC playback')
      pc = new RTCPeerConnection({ bundlePolicy: 'max-bundle' })
      pc.addTransceiver('video', { direction: 'recvonly' })
      pc.addTransceiver('audio', { direction: 'recvonly' })
      const media = new MediaStream()
      pc.ontrack = (e) => media.addTrack(e.track)
      await pc.setLocalDescription(await pc.createOffer())
      await new Promise<void>((resolve) => {
        if (!pc || pc.iceGatheringState === 'complete') return resolve()
        const t = setTimeout(resolve, 2000)
        pc.onicegatheringstatechange = () => {
          if (pc?.iceGatheringState === 'complete') {
            clearTimeout(t)
            resolve()
          }
        }
      })
      if (disposed || !pc) return
      let res: Response
      try {
        res = await fetch(src.url, {
          method: 'POST',
          headers: { 'content-type': 'application/sdp' },
          body: pc.localDescription!.sdp
        })
      } catch {
        return give('the WebRTC playback did not answer')
      }
      const body = await res.text()
      if (res.status !== 201) {
        let why = `HTTP ${res.status}`
        try {
          why = (JSON.parse(body) as { errors: string[] }).errors[0] ?? why
        } catch {
          // not JSON
        }
        return give(why)
      }
      if (disposed || !pc) return
      const loc = res.headers.get('location')
      location = loc ? new URL(loc, src.url).toString() : null
      timer = setTimeout(() => give('the WebRTC connection did not come up'), CONNECT_MS)
      pc.onconnectionstatechange = () => {
        if (pc?.connectionState === 'connected') {
          clearTimeout(timer)
          el.srcObject = media
          void playWithSound(el).then((autoplay) => {
            if (!disposed) setState({ kind: 'playing', autoplay })
          })
        } else if (pc?.connectionState === 'failed') give('the WebRTC connection failed')
      }
      await pc.setRemoteDescription({ type: 'answer', sdp: body })
    })().catch((e: unknown) => give(String(e)))
    return () => {
      disposed = true
      clearTimeout(timer)
      pc?.close()
      if (location) void fetch(location, { method: 'DELETE' }).catch(() => undefined)
      if (el.srcObject) el.srcObject = null
    }
  }, [api, video, playbackId])

  return state
}
