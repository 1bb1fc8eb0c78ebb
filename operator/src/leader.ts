import { CoordinationV1Api, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import { isStatus } from "./kube.ts";

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  /** How often the leader renews and a follower retries. */
  retryMs: number;
  /** A leader that could not renew for this long steps down. */
  renewDeadlineMs: number;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
  log?: (msg: string) => void;
}

/** MicroTime wants six fractional digits. */
const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

/**
 * Leader election on a coordination.k8s.io Lease, like client-go's: the holder renews every `retryMs`;
 * another replica takes the Lease only when it has not seen it change for a whole lease duration (by its
 * own clock, so clock skew between replicas does not matter). Writes carry the resourceVersion they read,
 * so two replicas can never both win the same round.
 */
export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private leading = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  private observed?: { rv: string; holder: string; at: number };
  /** The other replica this one last said it stands by for, so that is logged once, not every retry. */
  private standingBy?: string;
  private lastRenew = 0;

  constructor(
    kc: KubeConfig,
    private readonly o: LeaderOptions,
  ) {
    this.api = kc.makeApiClient(CoordinationV1Api);
  }

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    const tick = async () => {
      if (this.stopped) return;
      try {
        const ok = await this.tryAcquireOrRenew();
        if (ok) {
          this.lastRenew = Date.now();
          this.standingBy = undefined;
        }
        if (ok && !this.leading) {
          this.leading = true;
          this.o.log?.(`leading (lease ${this.o.namespace}/${this.o.name}, identity ${this.o.identity})`);
          this.o.onStartedLeading();
        }
      } catch (err) {
        this.o.log?.(`lease: ${(err as Error).message}`);
      }
      if (this.leading && Date.now() - this.lastRenew > this.o.renewDeadlineMs) {
        this.leading = false;
        this.o.log?.("lost the lease");
        this.o.onStoppedLeading();
      }
      if (!this.stopped) this.timer = setTimeout(tick, this.o.retryMs);
    };
    void tick();
  }

  /** Stop, and give the Lease up at once if held so another replica takes over without waiting. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.api.readNamespacedLease({ name: this.o.name, namespace: this.o.namespace });
      if (lease.spec?.holderIdentity !== this.o.identity) return;
      lease.spec = { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1 };
      (lease.spec as Record<string, unknown>).renewTime = microTime(Date.now());
      await this.api.replaceNamespacedLease({ name: this.o.name, namespace: this.o.namespace, body: lease });
    } catch {
      // The Lease expires by itself.
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { name, namespace, identity } = this.o;
    const now = Date.now();
    const durationS = Math.max(1, Math.ceil(this.o.leaseDurationMs / 1000));
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ name, namespace });
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      try {
        await this.api.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: durationS,
              // biome-ignore lint/suspicious/noExplicitAny: MicroTime travels as a string
              acquireTime: microTime(now) as any,
              // biome-ignore lint/suspicious/noExplicitAny: MicroTime travels as a string
              renewTime: microTime(now) as any,
              leaseTransitions: 0,
            },
          },
        });
        return true;
      } catch (e) {
        if (isStatus(e, 409)) return false;
        throw e;
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? "";
    const rv = lease.metadata?.resourceVersion ?? "";
    if (!this.observed || this.observed.rv !== rv) this.observed = { rv, holder, at: now };
    const heldByOther = holder !== "" && holder !== identity;
    const expiresMs = (spec.leaseDurationSeconds ?? durationS) * 1000;
    if (heldByOther && now - this.observed.at < expiresMs) {
      if (this.standingBy !== holder) this.o.log?.(`the lease is held by ${holder}; standing by`);
      this.standingBy = holder;
      return false;
    }
    const next: V1Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: durationS,
        // biome-ignore lint/suspicious/noExplicitAny: MicroTime travels as a string
        renewTime: microTime(now) as any,
      },
    };
    if (holder !== identity) {
      // biome-ignore lint/suspicious/noExplicitAny: MicroTime travels as a string
      next.spec!.acquireTime = microTime(now) as any;
      next.spec!.leaseTransitions = (spec.leaseTransitions ?? 0) + 1;
    }
    try {
      await this.api.replaceNamespacedLease({ name, namespace, body: next });
      return true;
    } catch (err) {
      if (isStatus(err, 409)) return false;
      throw err;
    }
  }
}
