/**
 * How many browser slots a worker runs, and when it stops taking tasks: from what its container may use
 * (its cgroup's limits), not what the host has. Pure decisions; the worker reads the numbers.
 */

export interface SlotCosts {
  /** What the worker and an idle Chromium take before any slot (Node, the browser process, the GPU and network services). */
  baseBytes: number;
  /** What one busy slot adds (a context and its renderer on a heavy page). */
  slotBytes: number;
  /** CPUs one busy slot keeps busy (a render, a screenshot, the markdown work). */
  slotCpus: number;
}

export const DEFAULT_SLOT_COSTS: SlotCosts = {
  baseBytes: 512 * 1024 * 1024,
  slotBytes: 384 * 1024 * 1024,
  slotCpus: 0.5,
};

/** The most slots one worker runs, whatever its limits. */
export const MAX_SLOTS = 64;

export interface Capacity {
  /** The container's memory limit, else the host's memory. */
  memoryBytes: number;
  /** The container's CPU limit, else the host's CPUs. */
  cpus: number;
}

export interface SlotPlan {
  slots: number;
  /** What set it: the setting, the memory, or the CPUs. */
  by: "setting" | "memory" | "cpu";
  /** Slots the setting asked for that the memory cannot hold (0: none). */
  capped: number;
}

/**
 * The slots that fit: as many as the memory holds beyond the base and as the CPUs keep busy; at least 1.
 * A setting (`wanted`) is taken as it is unless the memory cannot hold it, and then cut to what it holds:
 * a worker that takes more than its container holds is killed mid-task. Too few CPUs only slow a worker
 * down, so they size a worker left to choose, never cut a setting.
 */
export function planSlots(capacity: Capacity, costs: SlotCosts, wanted?: number): SlotPlan {
  const byMemory = Math.max(1, Math.floor((capacity.memoryBytes - costs.baseBytes) / costs.slotBytes));
  const byCpu = Math.max(1, Math.floor(capacity.cpus / costs.slotCpus + 1e-9));
  if (wanted !== undefined) {
    const slots = Math.min(wanted, byMemory, MAX_SLOTS);
    return { slots, by: slots === wanted ? "setting" : "memory", capped: wanted - slots };
  }
  const slots = Math.min(byMemory, byCpu, MAX_SLOTS);
  return { slots, by: byMemory <= byCpu ? "memory" : "cpu", capped: 0 };
}

export interface PressureThresholds {
  /** Stop taking tasks once the working set reaches this share of the limit. */
  high: number;
  /** Take them again once it is back below this share. */
  low: number;
}

export const DEFAULT_PRESSURE: PressureThresholds = { high: 0.85, low: 0.75 };

/**
 * Whether the worker is under memory pressure now, given whether it was: it enters at `high` and leaves
 * below `low`, so a working set hovering at the line does not flip admission on and off. No limit, or no
 * reading: never under pressure.
 */
export function underPressure(
  was: boolean,
  workingSetBytes: number | undefined,
  limitBytes: number | undefined,
  t: PressureThresholds = DEFAULT_PRESSURE,
): boolean {
  if (workingSetBytes === undefined || limitBytes === undefined || limitBytes <= 0) return false;
  const share = workingSetBytes / limitBytes;
  return was ? share >= t.low : share >= t.high;
}

/** What set a worker's slots, in words for its start-up log. */
export function slotsSetBy(plan: SlotPlan): string {
  if (plan.by === "setting") return "slots: as BROWSER_SLOTS asks";
  if (plan.capped > 0)
    return `slots: BROWSER_SLOTS asked for ${plan.slots + plan.capped}; the memory limit holds ${plan.slots}`;
  return `slots: sized by the container's ${plan.by === "memory" ? "memory" : "CPUs"} (BROWSER_SLOTS unset)`;
}
