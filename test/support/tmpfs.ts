/**
 * Small real file systems for the storage-failure tests: a tmpfs of a few
 * MiB (a disk that fills up), remounted larger (space freed) or read-only.
 * Needs root (the tests run as root here and in CI); each mount is
 * unmounted at the end of its test file.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "@effect/vitest"
import { tempDir } from "./paths.js"

const mounted: Array<string> = []

afterAll(() => {
  for (const dir of mounted.splice(0)) {
    try {
      execFileSync("umount", [dir], { stdio: "pipe" })
    } catch {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" })
    }
  }
})

/** A fresh folder with a tmpfs of `size` (`2m`, `64k`, …) mounted on it. */
export const tmpfs = (size: string): string => {
  const dir = path.join(tempDir("si-tmpfs-"), "mnt")
  fs.mkdirSync(dir)
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0755`, "tmpfs", dir], { stdio: "pipe" })
  mounted.push(dir)
  return dir
}

/** Remount the tmpfs on `dir` with `options` (`size=64m`: space freed; `ro`: read-only; `rw`). */
export const remount = (dir: string, options: string): void => {
  execFileSync("mount", ["-o", `remount,${options}`, dir], { stdio: "pipe" })
}
