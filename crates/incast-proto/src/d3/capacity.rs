//! D3 capacity control (D3, SIGCOMM 2011, Section 4.4): every T, move the capacity C that the
//! allocator hands out towards what the port can actually carry, from measured utilization and
//! queue. Three forms, chosen per port by [`Controller`]:
//!
//! ```text
//! printed: C(t+1) = C(t) + α (C(t) − u(t)/T) − β q(t)/T        (Section 4.4 as printed)
//! link:    C(t+1) = C(t) + α (link − u(t)/T) − β q(t)/T,
//!          and C(t+1) <= link + max(0, A(t) − u(t)/T)          (RCP's reading, anti-windup)
//! fixed:   C(t+1) = link                                        (no control)
//! ```
//!
//! each then clamped to `[capacity_min, capacity_max]` (the paper gives no bounds; see
//! `RouterConfig::for_link`).
//!
//! # The printed form
//!
//! The text prints C(t) in the spare term and says so in words: "when there is under-utilization
//! (u/T < C), the router compensates by allocating more total capacity in the next interval,
//! while when there is queuing (q(t) > 0), the allocations reduce". Under-utilization is measured
//! against what the router handed out, not against the link: the term grows C by α times the
//! allocation that went unused, which is what Section 4.4 needs it for (flows bottlenecked
//! downstream, and allocations that hosts never returned: "the resulting drop in utilization
//! drives up the capacity"). Its equilibrium, α (C − u/T) = β q/T, puts C above what flows use by
//! (β/α) q/T and costs the link nothing: a few KB of queue at full use is a steady state, which
//! is what the paper's Figure 16 shows (about 95% of the link with a few KB queued).
//!
//! What it does not do, and the paper does not say how it avoids: once a queue has cut C below
//! the link, flows that use their allocations make u/T = C, and C stays wherever it is; it climbs
//! back only by α times whatever allocation goes unused (discretization, paused flows, flows
//! between bursts), so a port that a burst cut to a quarter of its link may take many intervals
//! to recover. A C that reached 0 would stay there (every term is then zero or negative), hence
//! the floor. And C grows geometrically (by a factor 1 + α per interval) for as long as
//! allocations go unused, hence the ceiling. The port's soft-state reset (the router "during
//! periods of low load, resets its counters") returns C to the link.
//!
//! # The link form
//!
//! RCP \[10\], whose "discussion" footnote 4 cites for α and β, compares the *link* capacity with
//! the input rate: `R ← R (1 + (T/d)(α (link − y) − β q/d) / link)` per flow (its ns-2 router,
//! rcp.cc). Summed over flows bottlenecked at the port, with T = d, that is the link form: an
//! integrator whose input is the link's spare bandwidth minus the rate that would drain the queue
//! in one interval. It recovers from any cut (an idle link always raises C), but it settles where
//! α (link − u/T) = β q/T: every KB of queue seen at an update keeps (β/α) x 1 KB / 800 µs =
//! 12.5 MB/s, 10% of 1 Gbps, unallocated, so bursty senders leave the link under-used.
//!
//! ## Anti-windup
//!
//! An integrator winds up whenever its input stays positive while raising its output changes
//! nothing: here, while the link is not full because the flows through the port are held back
//! *before* it (a sender's own link, an upstream router's smaller allocation, which caps this
//! router's by Section 4.4). C then climbs towards its upper bound for as long as that lasts, and
//! the next burst of new flows is handed up to twice the link. RCP clamps its rate at the link
//! capacity (its ns-2 router: "if temp > link_capacity, flow_rate = link_capacity"): no flow can
//! use more. XCP \[6\] computes its aggregate feedback α d S − β Q afresh every interval, from the
//! spare bandwidth S actually measured, so nothing accumulates. D3's C is a sum over flows and
//! must be allowed above the link, to hand out allocations that downstream bottlenecks leave
//! unused (Section 4.4, the "downstream bottleneck problem"); the RCP clamp's reason, bound C by
//! what can be used, then gives
//!
//! ```text
//! C(t+1) <= link + max(0, A(t) − u(t)/T)
//! ```
//!
//! C exceeds the link by at most the allocations that went unused in the interval. A flow held
//! back upstream is allocated here no more than it sends (its upstream cap), so it adds nothing
//! to the unused part and cannot wind C up; a flow held back downstream is allocated more than
//! it sends, and C may rise to cover exactly that.
//!
//! # The fixed form
//!
//! C stays at the link: Snippet 1 over the physical capacity ("Link capacity is C"), with no
//! correction for queues or unused allocations. The reference point both controllers are
//! measured against.

use crate::rate::{rate_of, Rate};
use crate::time::Duration;

/// The update interval T = 800 µs (D3 footnote 4: "The update interval T should be larger than
/// the datacenter propagation RTT; in our implementation it is set to 800µs").
pub const CONTROL_INTERVAL: Duration = Duration::from_us(800);

/// The utilization gain α = 0.1 (D3 footnote 4: "chosen according to the discussion in \[10\]"
/// (RCP), "where the stability of this controller was shown, and are set to 0.1 and 1").
pub const ALPHA: f64 = 0.1;

/// The queue gain β = 1 (D3 footnote 4, as [`ALPHA`]).
pub const BETA: f64 = 1.0;

/// Which form of the Section 4.4 controller a port runs (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Controller {
    /// `C(t+1) = C(t) + α (C(t) − u(t)/T) − β q(t)/T`, as Section 4.4 prints it. The paper's D3.
    Printed,
    /// `C(t+1) = C(t) + α (link − u(t)/T) − β q(t)/T`, at most the link plus the allocations
    /// that went unused: RCP's reading with anti-windup.
    Link,
    /// `C = link`: no control.
    Fixed,
}

/// The form, gains and bounds of the capacity controller, copied from a validated `RouterConfig`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CapacityControl {
    /// Which equation.
    pub(crate) form: Controller,
    /// Physical capacity of the port.
    pub(crate) link_rate: Rate,
    /// T, the nominal interval; the queue term is q / T.
    pub(crate) interval: Duration,
    /// α, gain on spare bandwidth.
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
    /// "rate that drains the queue within one update interval". The result is within the
    /// configured bounds; the link form's is also at most the link plus the allocations that
    /// went unused (see "Anti-windup").
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
        let next = match self.form {
            Controller::Fixed => return self.link_rate.clamp(self.min, self.max),
            Controller::Printed => {
                capacity as f64 + self.alpha * (capacity as f64 - used as f64) - self.beta * drain
            }
            Controller::Link => {
                capacity as f64 + self.alpha * (self.link_rate as f64 - used as f64)
                    - self.beta * drain
            }
        };
        // `as` saturates a float into the integer range (a negative C becomes 0); the clamp
        // applies the configured bounds.
        let next = next.round() as Rate;
        let bounded = match self.form {
            Controller::Link => next.min(self.link_rate.saturating_add(allocated.saturating_sub(used))),
            Controller::Printed | Controller::Fixed => next,
        };
        bounded.clamp(self.min, self.max)
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
        form(Controller::Link)
    }

    fn form(form: Controller) -> CapacityControl {
        CapacityControl {
            form,
            link_rate: LINK,
            interval: T,
            alpha: ALPHA,
            beta: BETA,
            min: LINK / 4,
            max: 2 * LINK,
        }
    }

    #[test]
    fn link_next_full_link_empty_queue_keeps_capacity() {
        assert_eq!(control().next(LINK, LINK, FULL, T, 0), LINK);
        assert_eq!(control().next(LINK + 7, LINK + 7, FULL, T, 0), LINK + 7);
    }

    #[test]
    fn link_next_idle_half_the_interval_grows_by_alpha_times_spare() {
        // u/T = link / 2 with the whole capacity allocated, so C grows by 0.1 x link / 2.
        assert_eq!(control().next(LINK, LINK, FULL / 2, T, 0), LINK + LINK / 20);
    }

    #[test]
    fn link_next_queue_subtracts_its_draining_rate() {
        // q = 10 KB drains in T at 12.5 MB/s.
        assert_eq!(control().next(LINK, LINK, FULL, T, 10_000), LINK - 12_500_000);
    }

    #[test]
    fn link_next_clamps_to_both_bounds() {
        // A full 128 KB buffer asks for more than the whole link back.
        assert_eq!(control().next(LINK, LINK, FULL, T, 128_000), LINK / 4);
        assert_eq!(control().next(2 * LINK, 2 * LINK, 0, T, 0), 2 * LINK);
    }

    #[test]
    fn link_next_late_update_measures_utilization_over_elapsed_time() {
        // Two intervals' worth of full-rate bytes over two intervals is full utilization.
        assert_eq!(
            control().next(LINK, LINK, 2 * FULL, Duration::from_us(1_600), 0),
            LINK
        );
    }

    #[test]
    fn link_next_above_link_only_by_unused_allocation() {
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

    #[test]
    fn printed_full_use_of_allocation_keeps_capacity_wherever_it_is() {
        // Flows send exactly what they were handed: no under-utilization by the printed
        // measure, at the link or below it.
        let printed = form(Controller::Printed);
        assert_eq!(printed.next(LINK, LINK, FULL, T, 0), LINK);
        assert_eq!(printed.next(LINK / 2, LINK / 2, FULL / 2, T, 0), LINK / 2);
    }

    #[test]
    fn printed_unused_allocation_grows_by_alpha_times_the_unused_part() {
        // C = link, half of it used: + 0.1 x link / 2, as the link form, ...
        let printed = form(Controller::Printed);
        assert_eq!(printed.next(LINK, LINK, FULL / 2, T, 0), LINK + LINK / 20);
        // ... but measured against C, not the link: at 1.5 x link with the link fully used, C
        // still grows by 0.1 x (1.5 − 1) x link, where the link form would not move.
        assert_eq!(printed.next(3 * LINK / 2, 0, FULL, T, 0), 3 * LINK / 2 + LINK / 20);
        assert_eq!(control().next(3 * LINK / 2, 2 * LINK, FULL, T, 0), 3 * LINK / 2);
    }

    #[test]
    fn printed_queue_at_full_use_is_an_equilibrium_above_the_link() {
        // α (C − u/T) = β q/T: with 1 KB queued (1.25 MB/s to drain in T), C = link + 12.5 MB/s
        // holds still while the link is fully used. The link form would fall by 1.25 MB/s a step.
        let printed = form(Controller::Printed);
        let c = LINK + 12_500_000;
        assert_eq!(printed.next(c, c, FULL, T, 1_000), c);
        assert_eq!(control().next(c, c, FULL, T, 1_000), c - 1_250_000);
    }

    #[test]
    fn printed_below_link_and_idle_climbs_only_by_alpha_of_its_own_capacity() {
        // Nothing sent at C = link / 4: the printed form grows by 0.1 x C, the link form by
        // 0.1 x link.
        let printed = form(Controller::Printed);
        assert_eq!(printed.next(LINK / 4, 0, 0, T, 0), LINK / 4 + LINK / 40);
        assert_eq!(control().next(LINK / 4, 0, 0, T, 0), LINK / 4 + LINK / 10);
    }

    #[test]
    fn printed_clamps_to_both_bounds_without_the_unused_allocation_bound() {
        let printed = form(Controller::Printed);
        // A full 128 KB buffer asks for more than the whole link back: floor.
        assert_eq!(printed.next(LINK, LINK, FULL, T, 128_000), LINK / 4);
        // Idle at the ceiling: stays there (no anti-windup in the printed form).
        assert_eq!(printed.next(2 * LINK, 0, 0, T, 0), 2 * LINK);
        // Negative before the clamp: a floor of 0 holds it at 0, not below.
        let no_floor = CapacityControl { min: 0, ..printed };
        assert_eq!(no_floor.next(LINK / 10, LINK / 10, FULL / 10, T, 128_000), 0);
        assert_eq!(no_floor.next(0, 0, 6_000, T, 0), 0);
    }

    #[test]
    fn fixed_is_the_link_whatever_the_measurements() {
        let fixed = form(Controller::Fixed);
        assert_eq!(fixed.next(LINK / 4, 0, 0, T, 128_000), LINK);
        assert_eq!(fixed.next(2 * LINK, 2 * LINK, 0, T, 0), LINK);
    }
}
