// Vite's `?worker&url` import: the built URL of a worker script (here an AudioWorklet module).
declare module '*?worker&url' {
  const url: string
  export default url
}
