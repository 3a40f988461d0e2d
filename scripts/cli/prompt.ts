import { createInterface, type Interface } from 'node:readline'

/** Whether the CLI may ask questions: both ends are a terminal. */
export const interactive = () => Boolean(process.stdin.isTTY && process.stderr.isTTY)

// One interface for every question: answers typed ahead are not lost between two questions.
let rl: Interface | null = null
let muted = false

function prompts(): Interface {
  if (rl) return rl
  rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
  // readline echoes what is typed through _writeToOutput (the terminal is raw): silenced for secrets.
  const inner = rl as unknown as { _writeToOutput: (s: string) => void }
  const write = inner._writeToOutput.bind(rl)
  inner._writeToOutput = (s: string) => {
    if (!muted) write(s)
  }
  return rl
}

/** Asks on the terminal; `hidden` echoes nothing (passwords, passphrases). */
export function ask(question: string, hidden = false): Promise<string> {
  const r = prompts()
  muted = false
  const answer = new Promise<string>((resolve) =>
    r.question(question, (text) => {
      muted = false
      if (hidden) process.stderr.write('\n')
      resolve(text)
    }),
  )
  // The question is on the screen now; what is typed after it is not echoed.
  muted = hidden
  return answer
}

/** Releases the terminal so the process can exit. */
export function closePrompts(): void {
  rl?.close()
  rl = null
}
