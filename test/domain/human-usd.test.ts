/**
 * Costs for people round half up on their decimal value (README, "Costs as
 * people read them": 4 decimals, 2 from $100, below a cent up to 6): found by
 * a fresh user, a total of exactly $181.575 (its JSON 181.575) was shown as
 * $181.57, `toFixed` rounding the double 181.57499999999998863…
 */
import { describe, expect, it } from "vitest"
import { fixedHalfUp, humanUsd } from "../../src/domain/render.js"

describe("humanUsd rounds half up on the decimal value, in each branch", () => {
  it("2 decimals from $100", () => {
    expect(humanUsd(181.575)).toBe("$181.58")
    expect(humanUsd(100.005)).toBe("$100.01")
    expect(humanUsd(2.675 + 100)).toBe("$102.68")
    expect(humanUsd(181.574)).toBe("$181.57")
    expect(humanUsd(999.995)).toBe("$1000.00")
  })
  it("4 decimals from a cent (and for 0)", () => {
    expect(humanUsd(0.01235)).toBe("$0.0124")
    expect(humanUsd(2.67505)).toBe("$2.6751")
    expect(humanUsd(0.01234)).toBe("$0.0123")
    expect(humanUsd(0)).toBe("$0.0000")
    expect(humanUsd(99.99995)).toBe("$100.0000")
  })
  it("below a cent: up to 6 decimals, trailing zeros dropped down to 4", () => {
    expect(humanUsd(0.0012345)).toBe("$0.001235")
    expect(humanUsd(0.00105)).toBe("$0.00105")
    expect(humanUsd(0.0023)).toBe("$0.0023")
    expect(humanUsd(0.0000005)).toBe("$0.000001")
  })
  it("fixedHalfUp: away from zero for a negative value; no -0", () => {
    expect(fixedHalfUp(-181.575, 2)).toBe("-181.58")
    expect(fixedHalfUp(-0.001, 2)).toBe("0.00")
    expect(fixedHalfUp(2.5, 0)).toBe("3")
  })
})
