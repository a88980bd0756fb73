#!/usr/bin/env node
// A/B of the MCP server while its first resources/list runs (session 35): spawn `BIN mcp --index INDEX`, initialize,
// send resources/list, then a ping every 200 ms; print when the first ping and the list were answered (seconds since
// the list was sent). With EOF=1, end the input 500 ms after the list instead and print when the server exited, its
// code and the list's answer (the list: the end of input answers every request read). Processor time of the server from /proc at its exit
// (user + sys, via `/usr/bin/time`).
// usage: node bench/ab-mcp-busy.mjs BIN INDEX        e.g. EOF=1 node bench/ab-mcp-busy.mjs bin/session-ingest.mjs /tmp/big.db
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
const [bin, index] = process.argv.slice(2)
const eof = process.env.EOF === "1"
const timeFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ab-busy-")), "time")
const child = spawn("/usr/bin/time", ["-f", "user %U s, sys %S s", "-o", timeFile, process.execPath, bin, "mcp", "--index", index], { stdio: ["pipe", "pipe", "pipe"] })
let buf = ""
let sent = 0
const answered = new Map()
const send = (m) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n")
const since = () => ((Date.now() - sent) / 1000).toFixed(2)
let pinger
child.stdout.on("data", (d) => {
  buf += d
  let nl
  while ((nl = buf.indexOf("\n")) >= 0) {
    const m = JSON.parse(buf.slice(0, nl))
    buf = buf.slice(nl + 1)
    if (m.id === 1) {
      send({ method: "notifications/initialized" })
      sent = Date.now()
      send({ id: 2, method: "resources/list", params: {} })
      if (eof) setTimeout(() => { console.log(`${since()} s: input ended`); child.stdin.end() }, 500)
      else pinger = setInterval(() => send({ id: `p${Date.now()}`, method: "ping" }), 200)
    } else if (typeof m.id === "string" && !answered.has("ping")) {
      answered.set("ping", since())
      console.log(`${since()} s: first ping answered`)
    } else if (m.id === 2) {
      console.log(`${since()} s: resources/list answered: ${m.result ? `${m.result.resources.length} resources` : `error ${m.error.code} ${m.error.message.slice(0, 60)}`}`)
      if (!eof) { clearInterval(pinger); child.stdin.end() }
    }
  }
})
child.stderr.resume()
child.on("exit", (code) => {
  console.log(`${since()} s: exit ${code}; processor time: ${fs.readFileSync(timeFile, "utf8").trim()}`)
})
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "ab", version: "1" } } }) + "\n")
