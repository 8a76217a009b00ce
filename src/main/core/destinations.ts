// Destinations (multistream targets) on the active service, for the core's four calls. Built on the
// ApiClient alone, so the same code runs against Livepeer Studio and the local studio.
import type { AddDestinationArgs, DestinationsView } from '../../shared/contract'
import { checkTargetUrl } from '../../shared/destinations'
import { AppFailure } from '../../shared/result'
import type { ApiClient, ApiTarget } from './api-client'
import { targetRefsOf, toDestinationsView } from './view-models'

const isNotFound = (e: unknown): boolean => e instanceof AppFailure && e.error.code === 'not-found'

/** Targets in one list request: enough for any creator's destinations, more than a page of them is rare. */
const TARGETS_PAGE = 100

/**
 * The stream read once, and its targets for their names and whether they are disabled: with two or
 * more, in one request for the user's list; each one the list did not hold (a page too short, a
 * service that refuses the list, a target deleted behind our back) on its own, in parallel.
 */
export async function listDestinations(
  client: ApiClient,
  streamId: string
): Promise<DestinationsView> {
  const stream = await client.getStream(streamId)
  const ids = [...new Set(targetRefsOf(stream).map((t) => t.id))]
  const listed = ids.length > 1 ? await listedTargets(client, stream.userId) : new Map()
  const targets = await Promise.all(
    ids
      .filter((id) => !listed.has(id))
      .map((id) =>
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
  return toDestinationsView(stream, new Map([...listed, ...targets]))
}

/** The user's targets by id, from one page of the list; none when the service will not list them. */
async function listedTargets(
  client: ApiClient,
  userId: string | undefined
): Promise<Map<string, ApiTarget>> {
  if (!userId) return new Map()
  try {
    const page = await client.listTargets(userId, { limit: TARGETS_PAGE })
    return new Map(page.items.flatMap((t) => (t.id ? [[t.id, t] as const] : [])))
  } catch {
    // Each target is then read on its own, and says so if that fails too.
    return new Map()
  }
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
