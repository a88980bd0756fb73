/**
 * Session 24 (tester24a F15): command-line password forms that survived. HTTPie's `http|https -a|--auth user:PW`
 * (curl's `-u`), `rclone config create|update NAME TYPE <secret setting> VALUE` (name and value as two words),
 * Helm's `--set|--set-string a.b.rootPassword=…` (a camelCase secret name after a dot), and an environment variable
 * with an upper-case prefix and a lower-case secret name (`TF_VAR_db_password=… terraform apply`).
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { stays } from "../support/redaction-asserts.js"

const r = defaultRedaction

describe("F15: more command-line password forms", () => {
  it("HTTPie's -a / --auth user:password: the user stays, the password goes", () => {
    expect(r.text("http -a bob:HttpieAuth8812 api.x/me")).toBe(`http -a bob:${marker("cli-password")} api.x/me`)
    expect(r.text("https --auth=bob:HttpieAuth8812 api.x/me")).toBe(`https --auth=bob:${marker("cli-password")} api.x/me`)
    expect(r.text("https --auth 'bob:Httpie Auth 8812' api.x/me")).toBe(`https --auth 'bob:${marker("cli-password")}' api.x/me`)
    for (const t of ["http -a bob api.x", "curl https://x -a y:z", "http api.x/me a:b"]) stays(t)
  })

  it("rclone config create|update: each secret setting's value goes, the others stay", () => {
    expect(r.text("rclone config create s3 s3 secret_access_key RcloneSak8812xyz region us-east-1 pass Rcl0nePass8812")).toBe(
      `rclone config create s3 s3 secret_access_key ${marker("command-secret")} region us-east-1 pass ${marker("command-secret")}`
    )
    const out = r.text(`rclone config update gd drive client_secret GdSecret8812 token '{"access_token":"ya29.abcdefgh"}' password Pw8812xyz`)
    for (const s of ["GdSecret8812", "ya29.abcdefgh", "Pw8812xyz"]) expect(out).not.toContain(s)
    stays("rclone config create s3 s3 provider AWS region us-east-1")
  })

  it("Helm's --set and --set-string: a secret named last in the path goes (camelCase too); --set-file and other values stay", () => {
    expect(r.text("helm install x --set-string db.rootPassword=HelmSet2Pw8812 --set a.apiToken=HelmTok8812 --set image.tag=v1.2")).toBe(
      `helm install x --set-string db.rootPassword=${marker("command-secret")} --set a.apiToken=${marker("command-secret")} --set image.tag=v1.2`
    )
    stays("helm upgrade x --set-file tls.secretKey=./key.pem --set replicas=3")
  })

  it("an environment variable with an upper-case prefix and a lower-case secret name", () => {
    expect(r.text("TF_VAR_db_password=TfVarPw8812 terraform apply")).toBe(`TF_VAR_db_password=${marker("secret-argument")} terraform apply`)
    expect(r.text("export TF_VAR_api_token=TfTok8812xyz")).not.toContain("TfTok8812xyz")
    stays("TF_VAR_region=us-east-1 terraform apply")
  })
})
