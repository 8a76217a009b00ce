import { useEffect, useRef, useState, type ReactNode } from 'react'
import type { ClipView, SessionView } from '../../shared/contract'
import { useApi } from './lib/api'
import type { Route } from './lib/route'
import { ConnectionScreen } from './features/connection/ConnectionScreen'
import { ConnectionBadge } from './features/connection/ConnectionBadge'
import { StreamsScreen } from './features/streams/StreamsScreen'
import { StreamPage } from './features/streams/StreamPage'
import { GoLiveScreen } from './features/live/GoLiveScreen'
import { FreshPolicy } from './features/connection/use-fresh-policy'
import { LiveProvider } from './features/live/live-context'
import { LiveBanner } from './features/live/LiveBanner'
import { CutOffNotice } from './features/live/CutOffNotice'
import { DisplayChooser } from './features/live/DisplayChooser'
import { SessionsScreen } from './features/sessions/SessionsScreen'
import { PlayerDialog, type PlayerSource } from './features/player/PlayerDialog'
import { AboutPanel } from './features/about/AboutPanel'
import { SetupInvite } from './features/setup/SetupInvite'
import { KeysPanel } from './features/keys/KeysPanel'
import { WebhooksScreen } from './features/webhooks/WebhooksScreen'
import { StatsScreen } from './features/stats/StatsScreen'
import { HotkeysProvider } from './lib/use-hotkeys'
import { AppGone, useAppReachable } from './features/app/AppGone'
import { monitorUrl } from '../../shared/viewers'

const NAV: { route: Route; label: string }[] = [
  { route: { name: 'connection' }, label: 'Connection' },
  { route: { name: 'streams' }, label: 'Streams' },
  { route: { name: 'live' }, label: 'Go live' },
  { route: { name: 'sessions' }, label: 'Sessions' },
  { route: { name: 'stats' }, label: 'Stats' },
  { route: { name: 'webhooks' }, label: 'Webhooks' },
  { route: { name: 'keys' }, label: 'Keys' },
  { route: { name: 'about' }, label: 'About' }
]

const isCurrent = (nav: Route, now: Route): boolean =>
  nav.name === now.name || (nav.name === 'streams' && now.name === 'stream')

export function App(): ReactNode {
  const [route, setRoute] = useState<Route>({ name: 'connection' })
  const [playing, setPlaying] = useState<PlayerSource | null>(null)
  const api = useApi()
  const play = (session: SessionView): void => setPlaying({ kind: 'recording', session })
  const playClip = (clip: ClipView): void => setPlaying({ kind: 'clip', clip })
  const playAsset = (assetId: string, name: string): void =>
    setPlaying({ kind: 'asset', assetId, name })
  // The live monitor plays the stream's own live HLS, as its viewers get it.
  const watch = (streamId: string): void =>
    void api.getStream(streamId).then((r) => {
      if (r.ok && r.value.playbackUrl)
        setPlaying({
          kind: 'live',
          streamId: r.value.id,
          streamName: r.value.name,
          url: monitorUrl(r.value.playbackUrl),
          profiles: r.value.profiles,
          playbackId: r.value.playbackId
        })
    })
  const reachable = useAppReachable()
  useFocusHeadingOnNavigate(route)

  if (!reachable)
    return (
      <div className="app">
        <header className="topbar">
          <span className="brand">Onair</span>
        </header>
        <main className="content">
          <AppGone />
        </main>
      </div>
    )

  return (
    <HotkeysProvider>
      <LiveProvider>
        <FreshPolicy />
        <DisplayChooser />
        <div className="app">
          <header className="topbar">
            <span className="brand">Onair</span>
            <nav aria-label="Main">
              {NAV.map((n) => (
                <button
                  key={n.label}
                  type="button"
                  className="nav-item"
                  aria-current={isCurrent(n.route, route) ? 'page' : undefined}
                  onClick={() => setRoute(n.route)}
                >
                  {n.label}
                </button>
              ))}
            </nav>
            <ConnectionBadge onOpen={() => setRoute({ name: 'connection' })} />
          </header>
          <CutOffNotice onPlay={play} />
          <LiveBanner
            onOpen={(streamId) => setRoute({ name: 'live', streamId })}
            onWatch={watch}
            onPlayClip={playClip}
            onStats={() => setRoute({ name: 'stats' })}
          />
          <main className="content">
            {route.name === 'connection' && (
              <ConnectionScreen navigate={setRoute} intro={<SetupInvite />} />
            )}
            {route.name === 'streams' && <StreamsScreen navigate={setRoute} />}
            {route.name === 'stream' && (
              <StreamPage
                key={route.id}
                id={route.id}
                navigate={setRoute}
                onPlay={play}
                onWatch={watch}
              />
            )}
            {route.name === 'live' && <GoLiveScreen initialStreamId={route.streamId} />}
            {route.name === 'sessions' && (
              <SessionsScreen
                onPlay={play}
                onPlayAsset={playAsset}
                onWatch={watch}
                navigate={setRoute}
              />
            )}
            {route.name === 'webhooks' && <WebhooksScreen />}
            {route.name === 'stats' && <StatsScreen />}
            {route.name === 'keys' && <KeysPanel />}
            {route.name === 'about' && <AboutPanel />}
          </main>
          {playing && (
            <PlayerDialog
              key={
                playing.kind === 'clip'
                  ? playing.clip.id
                  : playing.kind === 'asset'
                    ? playing.assetId
                    : playing.kind
              }
              source={playing}
              onClose={() => setPlaying(null)}
              onPlayClip={playClip}
            />
          )}
        </div>
      </LiveProvider>
    </HotkeysProvider>
  )
}

/**
 * A new screen moves focus to its heading, so keyboard and screen-reader users land where the page
 * begins and hear its name (not on the first load: the browser places focus then).
 */
function useFocusHeadingOnNavigate(route: Route): void {
  const first = useRef(true)
  const key = route.name === 'stream' ? `stream:${route.id}` : route.name
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    const frame = requestAnimationFrame(() => {
      const h = document.querySelector<HTMLElement>('main h1')
      if (!h) return
      if (!h.hasAttribute('tabindex')) h.tabIndex = -1
      h.focus()
    })
    return () => cancelAnimationFrame(frame)
  }, [key])
}
