// Uploads benchmark (`npm run bench:uploads`, #35): a ~200 MB 720p local copy goes to the local studio
// as an asset through the app's own uploader (tus, parts from 8 MiB sized to the rate), side by side
// with a plain HTTP PUT of the same file to a server on loopback that only writes it to disk (the
// reference: what loopback and this disk carry with no protocol at all). Alternated, median of RUNS each. Also: how long after the
// last byte the asset is ready (HLS and MP4 made from the upload). Figures are printed and written into
// bench/results.md (its "Uploads" section), never asserted.
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { ApiClient } from '../../src/main/core/api-client'
import { assetService } from '../../src/main/core/uploads/publish'
import { Uploader } from '../../src/main/core/uploads/uploader'
import type { UploadView } from '../../src/shared/uploads'
import { makeLongCopy, startTestStudio, waitFor } from '../../tests/helpers/studio'
import { runAsScript, writeRows } from './results'
import { median, type BenchRow } from './types'

/** Alternated runs of each, after one of each to warm up (the first tus run took twice as long). */
const RUNS = 5

/** A server on loopback that writes each PUT's body to a file: the plain reference. */
async function plainServer(dir: string): Promise<{ server: Server; url: string }> {
  let n = 0
  const server = createServer((req, res) => {
    void pipeline(req, createWriteStream(join(dir, `put-${n++}.bin`))).then(
      () => res.writeHead(204).end(),
      () => res.writeHead(500).end()
    )
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` }
}

/** Seconds to PUT the file (the whole body, until the server answers). */
async function plainPut(url: string, file: string, size: number): Promise<number> {
  const t0 = performance.now()
  await new Promise<void>((resolve, reject) => {
    const req = request(
      url,
      { method: 'PUT', headers: { 'content-length': size, 'content-type': 'video/mp4' } },
      (res) => {
        res.resume()
        res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error('PUT failed'))))
      }
    )
    req.on('error', reject)
    createReadStream(file).pipe(req)
  })
  return (performance.now() - t0) / 1000
}

export async function runUploadsBench(): Promise<BenchRow[]> {
  const tmp = await mkdtemp(join(tmpdir(), 'onair-bench-uploads-'))
  const studio = await startTestStudio()
  const plain = await plainServer(tmp)
  try {
    const file = makeLongCopy(tmp)
    const size = (await stat(file)).size
    const client = new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey })
    const service = assetService(async () => client)
    const putS: number[] = []
    const tusS: number[] = []
    const readyS: number[] = []
    for (let i = 0; i <= RUNS; i++) {
      const put = await plainPut(plain.url, file, size)
      // The app's uploader, polling the asset every 100 ms so the ready time is the studio's.
      let ended: number | undefined
      let ready: number | undefined
      const uploader = new Uploader({
        appDataDir: await mkdtemp(join(tmp, 'app-')),
        service: () => service,
        pollMs: 100,
        emit: (v: UploadView) => {
          if (v.state === 'processing') ended ??= performance.now()
          if (v.state === 'ready') ready ??= performance.now()
        }
      })
      const t0 = performance.now()
      const up = await uploader.start({ file, name: `bench ${i}`, connectionId: 'bench' })
      await waitFor(
        async () => {
          const v = uploader.get(up.id)
          if (v?.state === 'failed') throw new Error(`the upload failed: ${JSON.stringify(v.error)}`)
          return ready !== undefined
        },
        300_000,
        'the asset ready',
        50
      )
      await uploader.stop()
      if (i === 0) continue // the warm-up
      putS.push(put)
      tusS.push((ended! - t0) / 1000)
      readyS.push((ready! - ended!) / 1000)
    }
    const mb = size / 1e6
    const tus = mb / median(tusS)
    const put = mb / median(putS)
    const rows: BenchRow[] = [
      {
        name: 'asset upload: throughput vs plain HTTP PUT of the same file on loopback',
        value: Math.round(tus),
        unit: 'MB/s',
        goal: { min: 0.8, of: 'ratio' },
        reference: {
          name: 'plain HTTP PUT to a server writing it to disk',
          value: Math.round(put),
          unit: 'MB/s'
        },
        note: `goal >= 0.8x; ${mb.toFixed(0)} MB 720p copy, the app's uploader (tus, parts from 8 MiB sized to the rate, at most 128 MiB) to the local studio, alternated with the PUT after one warm-up of each, median of ${RUNS} (tus ${tusS.map((s) => s.toFixed(2)).join(', ')} s; PUT ${putS.map((s) => s.toFixed(2)).join(', ')} s)`
      },
      {
        name: 'asset upload: ready after upload ends (200 MB, 720p)',
        value: Math.round(median(readyS) * 100) / 100,
        unit: 's',
        goal: { max: 10 },
        note: `goal <= 10 s; from the uploader seeing the upload end (processing) to the asset ready (HLS + MP4), polled every 100 ms, median of ${RUNS} (${readyS.map((s) => s.toFixed(2)).join(', ')} s)`
      }
    ]
    if (require.main === module) await writeRows('Uploads', rows, 'npm run bench:uploads')
    return rows
  } finally {
    plain.server.close()
    await studio.cleanup()
    await rm(tmp, { recursive: true, force: true })
  }
}

if (require.main === module) runAsScript('bench:uploads', runUploadsBench)
