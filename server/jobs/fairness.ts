/** A lane's oldest due item (a webhook endpoint's oldest delivery), and the tenant it belongs to. */
export interface LaneHead {
  tenant: number;
  lane: number;
  id: number;
}

/** Items in flight in this daemon, by tenant and by lane. */
export interface InFlight {
  tenants: ReadonlyMap<number, number>;
  lanes: ReadonlyMap<number, number>;
}

export interface Shares {
  /** Free slots of the queue in this daemon now. */
  room: number;
  /** The most one tenant, and one lane, may have in flight at once. */
  tenantInFlight: number;
  laneInFlight: number;
}

/**
 * Who gets the free slots (docs/webhooks.md#fairness): one at a time, to the tenant with the
 * fewest items in flight, then within it to the lane with the fewest, then to the oldest item;
 * never past a tenant's or a lane's share. So a tenant whose work stalls keeps at most its
 * share, and when every slot is taken the next free one goes to a tenant that has fewer: a
 * stalled tenant delays another by one attempt's timeout at most.
 * Answers how many items to claim of each lane.
 */
export function shareSlots(heads: readonly LaneHead[], shares: Shares, inFlight: InFlight): Map<number, number> {
  const tenants = new Map(inFlight.tenants);
  const lanes = new Map(inFlight.lanes);
  const planned = new Map<number, number>();
  const load = (counts: Map<number, number>, id: number) => counts.get(id) ?? 0;
  for (let slot = 0; slot < shares.room; slot++) {
    let best: LaneHead | undefined;
    for (const head of heads) {
      if (load(tenants, head.tenant) >= shares.tenantInFlight) continue;
      if (load(lanes, head.lane) >= shares.laneInFlight) continue;
      if (!best || before(head, best)) best = head;
    }
    if (!best) break;
    tenants.set(best.tenant, load(tenants, best.tenant) + 1);
    lanes.set(best.lane, load(lanes, best.lane) + 1);
    planned.set(best.lane, (planned.get(best.lane) ?? 0) + 1);
  }
  return planned;

  function before(head: LaneHead, best: LaneHead): boolean {
    const byTenant = load(tenants, head.tenant) - load(tenants, best.tenant);
    if (byTenant !== 0) return byTenant < 0;
    const byLane = load(lanes, head.lane) - load(lanes, best.lane);
    if (byLane !== 0) return byLane < 0;
    return head.id < best.id;
  }
}

/** Items in flight by id (tenant or lane), kept by the runner as they start and end. */
export function inFlightTally() {
  const counts = new Map<number, number>();
  return {
    counts: counts as ReadonlyMap<number, number>,
    add(id: number) {
      counts.set(id, (counts.get(id) ?? 0) + 1);
    },
    remove(id: number) {
      const left = (counts.get(id) ?? 1) - 1;
      if (left === 0) counts.delete(id);
      else counts.set(id, left);
    },
    /** The ids with at least `limit` in flight: at their share. */
    atLeast(limit: number): number[] {
      return [...counts].filter(([, count]) => count >= limit).map(([id]) => id);
    },
  };
}
