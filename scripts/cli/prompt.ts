import { createInterface } from 'node:readline'

/** Whether the CLI may ask questions: both ends are a terminal. */
export const interactive = () => Boolean(process.stdin.isTTY && process.stderr.isTTY)

/** Asks on the terminal; `hidden` echoes nothing (passwords, passphrases). */
export function ask(question: string, hidden = false): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
  if (hidden) {
    // readline echoes through _writeToOutput: silence everything after the question.
    const out = rl as unknown as { _writeToOutput: (s: string) => void; output: NodeJS.WriteStream }
    let asked = false
    out._writeToOutput = (s: string) => {
      if (!asked) {
        asked = true
        out.output.write(s)
      }
    }
  }
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close()
      if (hidden) process.stderr.write('\n')
      resolve(answer)
    }),
  )
}
