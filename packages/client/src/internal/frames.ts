/**
 * What the client reads out of a frame it refused: a short preview for error messages, and the ids
 * of its own requests the frame names (a refused answer ends the request it answers at once).
 */

/** A frame as an error message shows it: its first line, at most 200 characters. */
export const preview = (frame: string): string => {
  const line = frame.split(/\r?\n/, 1)[0] ?? ""
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

/** The ids of requests this client sent that a frame names (`"id":"snodo-7"`): at most the first 8. */
export const idsIn = (frame: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const match of frame.matchAll(/"id"\s*:\s*"(snodo-[0-9]+)"/g)) {
    if (match[1] !== undefined) found.push(match[1])
    if (found.length >= 8) break
  }
  return found
}

