/** Build the bundled CLI once before the tests, so CLI tests run what users run. */
import { execFileSync } from "node:child_process"
import { repoRoot } from "./paths.js"

export default function setup() {
  execFileSync("npm", ["run", "--silent", "build"], { cwd: repoRoot, stdio: "inherit" })
}
