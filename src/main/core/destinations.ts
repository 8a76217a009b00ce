// Destinations (multistream targets) on the active service, for the core's four calls. Built on the
// ApiClient alone, so the same code runs against Livepeer Studio and the local studio.
import type { AddDestinationArgs, DestinationsView } from '../../shared/contract'
import { checkTargetUrl } from '../../shared/destinations'
import { AppFailure } from '../../shared/result'
import type { ApiClient } from './api-client'
import { targetRefsOf, toDestinationsView } from './views'

const isNotFound = (e: unknown): boolean => e instanceof AppFailure && e.error.code === 'not-found'

/** The stream read once, and each of its targets (in parallel) for its name and whether it is disabled. */
export async function listDestinations(
  client: ApiClient,
  streamId: string
): Promise<DestinationsView> {
  const stream = await client.getStream(streamId)
  const ids = [...new Set(targetRefsOf(stream).map((t) => t.id))]
  const targets = await Promise.all(
    ids.map((id) =>
      client.getTarget(id).then(
        (t) => [id, t] as const,
        (e: unknown) => {
          // A target deleted behind our back still shows, as missing, so it can be taken off.
          if (isNotFound(e)) return [id, undefined] as const
          throw e
        }
      )
    )
  )
  return toDestinationsView(stream, new Map(targets))
}

/** Creates the target and puts it on the stream in one request (create-multistream-target). */
export async function addDestination(
  client: ApiClient,
  args: AddDestinationArgs
): Promise<DestinationsView> {
  // The renderer checked the same; arguments are untrusted, and the message never quotes the URL.
  const bad = checkTargetUrl(args.url)
  if (bad) throw new AppFailure({ code: 'bad-request', field: 'url', message: bad.message })
  await client.addStreamTarget(args.streamId, {
    name: args.name.trim(),
    url: args.url.trim(),
    profile: args.profile,
    videoOnly: args.videoOnly
  })
  return listDestinations(client, args.streamId)
}

/** A disabled target stays on the stream; the service stops pushing to it (while live too). */
export async function setDestinationEnabled(
  client: ApiClient,
  streamId: string,
  targetId: string,
  enabled: boolean
): Promise<DestinationsView> {
  await assertOnStream(client, streamId, targetId)
  await client.setTargetDisabled(targetId, !enabled)
  return listDestinations(client, streamId)
}

/** Off the stream first, then the target object itself, which would otherwise linger in the account. */
export async function removeDestination(
  client: ApiClient,
  streamId: string,
  targetId: string
): Promise<DestinationsView> {
  await assertOnStream(client, streamId, targetId)
  await client.removeStreamTarget(streamId, targetId)
  await client.deleteTarget(targetId).catch((e: unknown) => {
    if (!isNotFound(e)) throw e
  })
  return listDestinations(client, streamId)
}

/** Only a target of this stream may be switched or deleted from its page. */
async function assertOnStream(
  client: ApiClient,
  streamId: string,
  targetId: string
): Promise<void> {
  const refs = targetRefsOf(await client.getStream(streamId))
  if (!refs.some((t) => t.id === targetId))
    throw new AppFailure({
      code: 'not-found',
      message: 'This destination is not on the stream any more (it may have been removed).'
    })
}
