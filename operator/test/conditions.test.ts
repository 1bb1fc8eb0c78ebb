import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conditionTime, reportConditions, setStatusCondition } from "../src/conditions.ts";
import type { Condition } from "../src/spec.ts";

const T0 = "2026-01-01T00:00:00Z";
const T1 = "2026-01-01T00:05:00Z";
const ready: Condition = {
  type: "Ready",
  status: "False",
  reason: "Creating",
  message: "waiting",
  lastTransitionTime: T0,
  observedGeneration: 1,
};

describe("status conditions", () => {
  it("adds a condition of a new type with the time given", () => {
    const out = setStatusCondition(
      [],
      { type: "Ready", status: "True", reason: "PodsReady", message: "1 of 1" },
      T1,
    );
    assert.deepEqual(out, [
      { type: "Ready", status: "True", reason: "PodsReady", message: "1 of 1", lastTransitionTime: T1 },
    ]);
  });

  it("keeps lastTransitionTime when only the reason, message or generation change", () => {
    const out = setStatusCondition(
      [ready],
      { type: "Ready", status: "False", reason: "PodsNotReady", message: "0 of 1", observedGeneration: 2 },
      T1,
    );
    assert.deepEqual(out, [
      {
        type: "Ready",
        status: "False",
        reason: "PodsNotReady",
        message: "0 of 1",
        observedGeneration: 2,
        lastTransitionTime: T0,
      },
    ]);
  });

  it("moves lastTransitionTime when the status changes", () => {
    const out = setStatusCondition(
      [ready],
      { type: "Ready", status: "True", reason: "PodsReady", message: "ok" },
      T1,
    );
    assert.equal(out[0]?.status, "True");
    assert.equal(out[0]?.lastTransitionTime, T1);
  });

  it("leaves other conditions and the list it was given alone", () => {
    const load: Condition = { ...ready, type: "LoadSignals", status: "True", reason: "Reading" };
    const before = [ready, load];
    const out = setStatusCondition(
      before,
      { type: "Ready", status: "True", reason: "PodsReady", message: "ok" },
      T1,
    );
    assert.deepEqual(out[1], load);
    assert.equal(before[0], ready);
    assert.equal(ready.status, "False");
  });

  it("reports exactly the conditions of this pass, keeping the times of those that did not flip", () => {
    const load: Condition = { ...ready, type: "LoadSignals", status: "True", reason: "Reading" };
    const out = reportConditions(
      [ready, load],
      [{ type: "Ready", status: "False", reason: "InvalidSpec", message: "spec: bad" }],
      T1,
    );
    assert.deepEqual(
      out.map((c) => [c.type, c.reason, c.lastTransitionTime]),
      [["Ready", "InvalidSpec", T0]],
    );
  });

  it("writes times in whole seconds, as Kubernetes does", () => {
    assert.equal(conditionTime(Date.UTC(2026, 0, 1, 0, 0, 0, 789)), "2026-01-01T00:00:00Z");
  });
});
