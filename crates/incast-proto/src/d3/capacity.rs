//! D3 capacity control (D3, SIGCOMM 2011, Section 4.4): every T, move the capacity C that the
//! allocator hands out towards what the port can actually carry, from measured utilization and
//! queue.
//!
//! The paper prints `C(t+1) = C(t) + α (C(t) − u(t)/T) − β q/T`. Read literally it fails both
//! ways. C appears with coefficient 1 + α > 1, so whenever allocations go unused (u/T < C: a
//! downstream bottleneck, or flows that never returned their allocation) C grows geometrically
//! with the unused part, without bound. And once a queue has cut C below the link, flows that use
//! their allocations make u/T = C, a fixed point at *any* C: nothing ever tells the router that
//! the link has room again, and the port stays under-used for good. The controller is borrowed
//! "from \[6,10\]", and RCP \[10\] compares the *link* capacity with the input rate; the paper
//! uses one letter for both. This module implements that RCP reading:
//!
//! ```text
//! C(t+1) = clamp( C(t) + α (link − u(t)/T) − β q(t)/T ,  capacity_min, capacity_max )
//! ```
//!
//! an integrator whose input is the link's spare bandwidth minus the rate that would drain the
//! queue in one interval. It settles only where the port is fully used with an empty queue, or at
//! a clamp. Since u/T can never exceed the link, C rises only while the link is idle for part of
//! the interval and falls only while a queue stands, which is the behaviour Section 4.4 describes
//! ("when there is under-utilization (u/T < C), the router compensates by allocating more total
//! capacity in the next interval, while when there is queuing (q(t) > 0), the allocations
//! reduce").
//!
//! # Anti-windup
//!
//! An integrator winds up whenever its input stays positive while raising its output changes
//! nothing: here, while the link is not full because the flows through the port are held back
//! *before* it (a sender's own link, an upstream router's smaller allocation, which caps this
//! router's by Section 4.4). C then climbs towards its upper bound for as long as that lasts, and
//! the next burst of new flows is handed up to twice the link. D3's references bound their
//! controllers where raising them stops being useful. RCP \[10\] integrates its per-flow rate
//! the same way and clamps it at the link capacity (its ns-2 router: "if temp >
//! link_capacity, flow_rate = link_capacity"): no flow can use more. XCP \[6\] computes its
//! aggregate feedback α d S − β Q afresh every interval, from the spare bandwidth S actually
//! measured, so nothing accumulates. D3's C is a sum over flows and must be allowed above the
//! link, to hand out allocations that downstream bottlenecks leave unused (Section 4.4, the
//! "downstream bottleneck problem"); the RCP clamp's reason, bound C by what can be used, then
//! gives
//!
//! ```text
//! C(t+1) <= link + max(0, A(t) − u(t)/T)
//! ```
//!
//! C exceeds the link by at most the allocations that went unused in the interval. A flow held
//! back upstream is allocated here no more than it sends (its upstream cap), so it adds nothing
//! to the unused part and cannot wind C up; a flow held back downstream is allocated more than
//! it sends, and C may rise to cover exactly that.

use super::rate::{rate_of, Rate};
use crate::time::Duration;

/// The update interval T = 800 µs (D3 footnote 4: "The update interval T should be larger than
/// the datacenter propagation RTT; in our implementation it is set to 800µs").
pub const CONTROL_INTERVAL: Duration = Duration::from_us(800);

/// The utilization gain α = 0.1 (D3 footnote 4: "chosen according to the discussion in \[10\]"
/// (RCP), "where the stability of this controller was shown, and are set to 0.1 and 1").
pub const ALPHA: f64 = 0.1;

/// The queue gain β = 1 (D3 footnote 4, as [`ALPHA`]).
pub const BETA: f64 = 1.0;

/// The gains and bounds of the capacity controller, copied from a validated `RouterConfig`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CapacityControl {
    /// Physical capacity of the port.
    pub(crate) link_rate: Rate,
    /// T, the nominal interval; the queue term is q / T.
    pub(crate) interval: Duration,
    /// α, gain on spare link bandwidth.
    pub(crate) alpha: f64,
    /// β, gain on the queue-draining rate.
    pub(crate) beta: f64,
    /// Lowest capacity C may take.
    pub(crate) min: Rate,
    /// Highest capacity C may take.
    pub(crate) max: Rate,
}

impl CapacityControl {
    /// C(t+1) from C(t), the allocations A(t) it covers now, the bytes the port sent over the
    /// last `elapsed` (u(t)) and the queue at the end of it (q(t)).
    ///
    /// u/T uses the time that actually elapsed, so a driver that fires the timer late does not
    /// mistake a longer interval's bytes for overload; q/T uses the configured T, the paper's
    /// "rate that drains the queue within one update interval". The result is at most the link
    /// plus the allocations that went unused (see "Anti-windup"), then within the configured
    /// bounds.
    pub(crate) fn next(
        &self,
        capacity: Rate,
        allocated: Rate,
        sent_bytes: u64,
        elapsed: Duration,
        queue_bytes: u64,
    ) -> Rate {
        let used = rate_of(sent_bytes, elapsed);
        let drain = rate_of(queue_bytes, self.interval) as f64;
        let next = capacity as f64 + self.alpha * (self.link_rate as f64 - used as f64)
            - self.beta * drain;
        let usable = self.link_rate.saturating_add(allocated.saturating_sub(used));
        // `as` saturates a float into the integer range; the clamp applies the configured bounds.
        (next.round() as Rate).min(usable).clamp(self.min, self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: Rate = 125_000_000;
    const T: Duration = CONTROL_INTERVAL;
    /// Bytes a fully used 1 Gbps link sends in T.
    const FULL: u64 = 100_000;

    fn control() -> CapacityControl {
        CapacityControl {
            link_rate: LINK,
            interval: T,
            alpha: ALPHA,
            beta: BETA,
            min: LINK / 4,
            max: 2 * LINK,
        }
    }

    #[test]
    fn next_full_link_empty_queue_keeps_capacity() {
        assert_eq!(control().next(LINK, LINK, FULL, T, 0), LINK);
        assert_eq!(control().next(LINK + 7, LINK + 7, FULL, T, 0), LINK + 7);
    }

    #[test]
    fn next_idle_half_the_interval_grows_by_alpha_times_spare() {
        // u/T = link / 2 with the whole capacity allocated, so C grows by 0.1 x link / 2.
        assert_eq!(control().next(LINK, LINK, FULL / 2, T, 0), LINK + LINK / 20);
    }

    #[test]
    fn next_queue_subtracts_its_draining_rate() {
        // q = 10 KB drains in T at 12.5 MB/s.
        assert_eq!(control().next(LINK, LINK, FULL, T, 10_000), LINK - 12_500_000);
    }

    #[test]
    fn next_clamps_to_both_bounds() {
        // A full 128 KB buffer asks for more than the whole link back.
        assert_eq!(control().next(LINK, LINK, FULL, T, 128_000), LINK / 4);
        assert_eq!(control().next(2 * LINK, 2 * LINK, 0, T, 0), 2 * LINK);
    }

    #[test]
    fn next_late_update_measures_utilization_over_elapsed_time() {
        // Two intervals' worth of full-rate bytes over two intervals is full utilization.
        assert_eq!(
            control().next(LINK, LINK, 2 * FULL, Duration::from_us(1_600), 0),
            LINK
        );
    }

    #[test]
    fn next_above_link_only_by_unused_allocation() {
        // Half the link idle, but the flows send all they were allocated (half the link; they
        // are held back before this port): no unused allocation, so C stays at the link.
        let held_upstream = LINK / 2;
        assert_eq!(control().next(LINK, held_upstream, FULL / 2, T, 0), LINK);
        // Already wound up: back to the link at once.
        assert_eq!(control().next(3 * LINK / 2, held_upstream, FULL / 2, T, 0), LINK);
        // Allocated the whole link but sending half (held back downstream): C may rise by the
        // unused half, and here rises by alpha of the spare.
        assert_eq!(control().next(LINK, LINK, FULL / 2, T, 0), LINK + LINK / 20);
        // Below the link the bound does not bite: an idle port climbs back towards the link.
        assert_eq!(control().next(LINK / 2, 0, 0, T, 0), LINK / 2 + LINK / 10);
    }
}
