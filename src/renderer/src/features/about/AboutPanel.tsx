import type { ReactNode } from 'react'
import { useApi } from '../../lib/api'
import { useResult } from '../../lib/use-result'
import { ErrorNote, Loading } from '../../components/ErrorNote'

export function AboutPanel(): ReactNode {
  const api = useApi()
  const info = useResult(() => api.appInfo(), [api])
  return (
    <section className="screen" aria-labelledby="about-title">
      <h1 id="about-title">About Onair</h1>
      {info.loading && !info.value && <Loading />}
      {info.error && <ErrorNote error={info.error} onRetry={info.reload} />}
      {info.value && (
        <dl className="kv card" data-testid="about">
          <dt>Version</dt>
          <dd>{info.value.version}</dd>
          <dt>Platform</dt>
          <dd>
            {info.value.platform} ({info.value.arch})
          </dd>
          <dt>Shell</dt>
          <dd>
            {info.value.shell === 'electron'
              ? `Electron ${info.value.electron ?? ''}`
              : 'Web shell'}
            {' · '}Node {info.value.node}
          </dd>
          <dt>ffmpeg</dt>
          {'error' in info.value.ffmpeg ? (
            <dd>
              <ErrorNote error={{ code: 'ffmpeg-missing', message: info.value.ffmpeg.error }} />
            </dd>
          ) : (
            <dd data-testid="about-ffmpeg">
              <code>{info.value.ffmpeg.path}</code> ({info.value.ffmpeg.source})
              <br />
              {info.value.ffmpeg.version}
            </dd>
          )}
        </dl>
      )}
    </section>
  )
}
