// A picked image file becomes a scene picture: checked, decoded, scaled down to the output's largest
// size and re-encoded (PNG when it has transparency, JPEG otherwise), so what is kept is small, a known
// format, and never the original file. The bytes go to the app's data folder (saveSceneImage), which
// answers the file's name; the scenes keep only that name. Nothing is uploaded.
import type { OnairApi } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { LIMITS, type ImageSource } from '../../../../shared/scenes'

const mb = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`

export type KeptImage = Omit<ImageSource, 'id' | 'kind'>

export async function keepImageFile(api: OnairApi, file: File): Promise<KeptImage | AppError> {
  if (file.size > LIMITS.imageFileBytes)
    return {
      code: 'media',
      message: `"${file.name}" is too large (${mb(file.size)}).`,
      hint: `Pick an image under ${mb(LIMITS.imageFileBytes)}: a logo or a title card is usually far smaller.`
    }
  const url = URL.createObjectURL(file)
  const img = new Image()
  try {
    img.src = url
    await img.decode()
  } catch {
    return {
      code: 'media',
      message: `"${file.name}" is not an image Onair can read.`,
      hint: 'Pick a PNG, JPEG, GIF, WebP or SVG file.'
    }
  } finally {
    URL.revokeObjectURL(url)
  }
  const w0 = img.naturalWidth || 300
  const h0 = img.naturalHeight || 150
  const scale = Math.min(1, LIMITS.imageMaxWidth / w0, LIMITS.imageMaxHeight / h0)
  const width = Math.max(1, Math.round(w0 * scale))
  const height = Math.max(1, Math.round(h0 * scale))
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  const ctx = canvas.getContext('2d', { willReadFrequently: true })
  if (!ctx) return { code: 'media', message: 'This system cannot process images (no 2D canvas).' }
  ctx.drawImage(img, 0, 0, width, height)
  const pixels = ctx.getImageData(0, 0, width, height).data
  let transparent = false
  for (let i = 3; i < pixels.length; i += 4)
    if (pixels[i]! < 255) {
      transparent = true
      break
    }
  const blob = await new Promise<Blob | null>((resolve) =>
    transparent ? canvas.toBlob(resolve, 'image/png') : canvas.toBlob(resolve, 'image/jpeg', 0.9)
  )
  if (!blob) return { code: 'media', message: `"${file.name}" could not be re-encoded.` }
  if (blob.size > LIMITS.imageBytes)
    return {
      code: 'media',
      message: `"${file.name}" is still too large once scaled to ${width}x${height}.`,
      hint: 'Pick a simpler image, or one without transparency.'
    }
  const saved = await api.saveSceneImage(new Uint8Array(await blob.arrayBuffer()))
  if (!saved.ok) return saved.error
  return { name: file.name.slice(0, 300), file: saved.value, width, height }
}

export const failedToKeep = (v: KeptImage | AppError): v is AppError => 'code' in v
