//! Scripted exchanges with one port's allocator, closed-loop runs of its capacity controller and
//! property tests of its accounting.

use super::*;
use crate::rate::bytes_in;
use proptest::prelude::*;

/// 1 Gbps in bytes per second.
const LINK: Rate = 125_000_000;
/// The default base rate: 62 B per 300 µs, rounded up.
const BASE: Rate = 206_667;
/// The default control interval.
const T: Duration = CONTROL_INTERVAL;
/// MB/s, to keep the scripts readable.
const M: Rate = 1_000_000;

fn config() -> RouterConfig {
    RouterConfig::for_link(BitsPerSec::GBPS)
}

fn router() -> Router {
    Router::new(config(), Instant::ZERO)
}

/// The paper's router with incast's repairs.
fn repaired_config() -> RouterConfig {
    RouterConfig::repaired(BitsPerSec::GBPS)
}

fn repaired() -> Router {
    Router::new(repaired_config(), Instant::ZERO)
}

/// RCP's reading of the controller, floored at a quarter of the link.
fn link_form_config() -> RouterConfig {
    RouterConfig::link_form(BitsPerSec::GBPS)
}

/// The rate a grant holds at the router: the base rate for the base grant.
fn held(grant: Rate) -> Rate {
    RateField::held(grant, BASE)
}

/// A host's view of one flow: what it last asked for and was given, as a real D3 sender echoes
/// them back (Section 4.3), and its flow hash.
#[derive(Clone, Copy, Debug, Default)]
struct Flow {
    desired: Rate,
    alloc: Rate,
    hash: u32,
}

impl Flow {
    /// Sends the SYN request.
    fn start(router: &mut Router, desired: Rate) -> Flow {
        Flow::start_capped(router, desired, None)
    }

    fn start_capped(router: &mut Router, desired: Rate, upstream_min: Option<Rate>) -> Flow {
        // Distinct per live flow, which is all the time slices need.
        let hash = router.counters().flows as u32;
        let req = RateRequest {
            syn: true,
            desired,
            upstream_min,
            flow_hash: hash,
            ..RateRequest::default()
        };
        Flow {
            desired,
            alloc: router.handle_request(&req),
            hash,
        }
    }

    /// Sends the next request, returning this interval's allocation.
    fn ask(&mut self, router: &mut Router, desired: Rate) -> Rate {
        self.ask_capped(router, desired, None)
    }

    fn ask_capped(
        &mut self,
        router: &mut Router,
        desired: Rate,
        upstream_min: Option<Rate>,
    ) -> Rate {
        let req = RateRequest {
            desired,
            prev_desired: self.desired,
            prev_alloc: self.alloc,
            upstream_min,
            flow_hash: self.hash,
            ..RateRequest::default()
        };
        self.desired = desired;
        self.alloc = router.handle_request(&req);
        self.alloc
    }

    /// Sends the FIN request.
    fn finish(self, router: &mut Router) -> Rate {
        let req = RateRequest {
            fin: true,
            prev_desired: self.desired,
            prev_alloc: self.alloc,
            ..RateRequest::default()
        };
        router.handle_request(&req)
    }
}

// ---- Configuration ----

#[test]
fn config_for_1gbps_link_has_papers_values() {
    let c = config();
    assert_eq!(c.link_rate, LINK);
    assert_eq!(c.base_rate, BASE);
    assert_eq!(c.control_interval, Duration::from_us(800));
    assert_eq!((c.alpha, c.beta), (0.1, 1.0));
    assert_eq!((c.capacity_min, c.capacity_max), (LINK, 2 * LINK));
    assert!(c.new_flow_pause);
    assert_eq!(c.validate(), Ok(()));
    // The paper's D3: the controller as printed, none of incast's repairs.
    assert_eq!(c.controller, Controller::Printed);
    assert!(!c.time_slices && !c.carry_remainder && !c.reclaim_dropped);
}

#[test]
fn config_repaired_differs_from_the_paper_only_by_the_repairs() {
    let r = repaired_config();
    assert_eq!((r.controller, r.capacity_min), (Controller::Printed, LINK));
    assert!(r.time_slices && r.carry_remainder && r.reclaim_dropped);
    let back = RouterConfig {
        time_slices: false,
        carry_remainder: false,
        reclaim_dropped: false,
        ..r
    };
    assert_eq!(back, config());
    let l = link_form_config();
    assert_eq!((l.controller, l.capacity_min), (Controller::Link, LINK / 4));
    assert_eq!(RouterConfig { controller: Controller::Printed, capacity_min: LINK, ..l }, config());
}

#[test]
fn config_invalid_fields_are_named() {
    let zero_t = RouterConfig {
        control_interval: Duration::ZERO,
        ..config()
    };
    assert!(zero_t.validate().unwrap_err().contains("control_interval"));
    let nan = RouterConfig {
        alpha: f64::NAN,
        ..config()
    };
    assert!(nan.validate().unwrap_err().contains("alpha"));
    let negative = RouterConfig {
        beta: -1.0,
        ..config()
    };
    assert!(negative.validate().unwrap_err().contains("beta"));
    let inverted = RouterConfig {
        capacity_min: 3 * LINK,
        ..config()
    };
    assert!(inverted.validate().unwrap_err().contains("capacity_min"));
}

#[test]
#[should_panic(expected = "control_interval")]
fn new_zero_interval_panics() {
    Router::new(
        RouterConfig {
            control_interval: Duration::ZERO,
            ..config()
        },
        Instant::ZERO,
    );
}

#[test]
fn new_starts_empty_at_link_rate() {
    let r = router();
    assert_eq!(
        r.counters(),
        Counters {
            flows: 0,
            demand: 0,
            allocated: 0,
            capacity: LINK
        }
    );
}

// ---- Snippet 1, branch by branch ----

#[test]
fn request_enough_capacity_gets_desired_plus_fair_share() {
    let mut r = router();
    let mut deadline = Flow::start(&mut r, 25 * M);
    let _background = Flow::start(&mut r, 0);
    // left = C − A = 125 − BASE > 25; fs = (125 − 25) / 2 = 50.
    assert_eq!(deadline.ask(&mut r, 25 * M), 75 * M);
    assert_eq!(r.counters().allocated, 75 * M + BASE);
    assert_eq!(r.counters().demand, 25 * M);
}

#[test]
fn request_not_enough_capacity_gets_left_capacity() {
    let mut r = router();
    let big = Flow::start(&mut r, 100 * M);
    assert_eq!(big.alloc, 100 * M + BASE);
    // left = 125 − 100 − BASE < 50: the whole remainder, no more.
    let second = Flow::start(&mut r, 50 * M);
    assert_eq!(second.alloc, 25 * M - BASE);
    assert_eq!(r.counters().allocated, LINK);
}

#[test]
fn request_over_allocated_port_gets_base_rate() {
    let mut r = router();
    let mut first = Flow::start(&mut r, 0);
    assert_eq!(first.ask(&mut r, 0), LINK);
    // A = C: left is zero, the new flow gets only the base rate; now A > C.
    let second = Flow::start(&mut r, 0);
    assert_eq!(second.alloc, BASE_GRANT);
    assert_eq!(r.counters().allocated, LINK + BASE);
    // C − A is negative: still the base rate, and A grows by exactly that.
    let third = Flow::start(&mut r, 10 * M);
    assert_eq!(third.alloc, BASE_GRANT);
    assert_eq!(r.counters().allocated, LINK + 2 * BASE);
}

#[test]
fn request_demand_above_capacity_gets_desired_without_fair_share() {
    let mut r = router();
    let _a = Flow::start(&mut r, 100 * M);
    let mut b = Flow::start(&mut r, 10 * M);
    assert_eq!(b.alloc, 10 * M + BASE);
    let c = Flow::start(&mut r, 50 * M);
    assert_eq!(c.alloc, 15 * M - 2 * BASE);
    assert_eq!(r.counters().demand, 160 * M);
    // C − D < 0: fs clamps to zero, so b still gets exactly what it asked for (left = 10 + BASE).
    assert_eq!(b.ask(&mut r, 10 * M), 10 * M);
}

#[test]
fn request_zero_fair_share_floored_at_base_rate() {
    let mut r = router();
    // Asks for more than the link, gets it all, but the upstream router granted only 1 MB/s.
    let hog = Flow::start_capped(&mut r, 200 * M, Some(M));
    assert_eq!(hog.alloc, M);
    let mut background = Flow::start(&mut r, 0);
    // left = 124 > 0, but fs = (125 − 200) / 2 clamps to 0: the floor gives the base rate
    // (nothing is left to time-slice either).
    assert_eq!(background.ask(&mut r, 0), BASE_GRANT);
}

#[test]
fn request_non_deadline_flows_share_capacity_equally() {
    let mut r = router();
    let mut a = Flow::start(&mut r, 0);
    let mut b = Flow::start(&mut r, 0);
    assert_eq!((a.alloc, b.alloc), (BASE_GRANT, BASE_GRANT));
    assert_eq!(a.ask(&mut r, 0), LINK / 2);
    assert_eq!(b.ask(&mut r, 0), LINK / 2);
    assert_eq!(r.counters().allocated, LINK);
}

#[test]
fn request_from_uncounted_flow_divides_by_one() {
    // After a reset (or duplicate FINs) N may be zero while a flow still asks: fs = C / 1.
    let mut r = router();
    let mut orphan = Flow::default();
    assert_eq!(orphan.ask(&mut r, 0), LINK);
    assert_eq!(r.counters().flows, 0);
}

#[test]
fn request_upstream_cap_limits_allocation() {
    let mut r = router();
    let mut capped = Flow::start(&mut r, 0);
    assert_eq!(capped.ask_capped(&mut r, 0, Some(30 * M)), 30 * M);
    // The capacity the capped flow cannot use stays free for the next one.
    let mut other = Flow::start(&mut r, 0);
    assert_eq!(other.ask(&mut r, 0), LINK / 2);
    assert_eq!(r.counters().allocated, 30 * M + LINK / 2);
    assert_eq!(LINK - r.counters().allocated, 32_500_000);
}

#[test]
fn request_upstream_cap_below_base_rate_still_gets_base_rate() {
    let mut r = router();
    let mut f = Flow::start(&mut r, 0);
    assert_eq!(f.ask_capped(&mut r, 0, Some(1_000)), BASE_GRANT);
    assert_eq!(r.counters().allocated, BASE);
}

#[test]
fn syn_with_pause_gets_desired_plus_base_rate() {
    let mut r = router();
    let mut f = Flow::start(&mut r, 10 * M);
    // Not 10 + (125 − 10): the new flow's fair share is the base rate (Section 4.5).
    assert_eq!(f.alloc, 10 * M + BASE);
    let background = Flow::start(&mut r, 0);
    assert_eq!(background.alloc, BASE_GRANT);
    // One RTT later the flow gets its share as normal: 10 + (125 − 10) / 2.
    assert_eq!(f.ask(&mut r, 10 * M), 10 * M + 57_500_000);
}

#[test]
fn syn_without_pause_gets_fair_share() {
    let mut r = Router::new(
        RouterConfig {
            new_flow_pause: false,
            ..config()
        },
        Instant::ZERO,
    );
    let f = Flow::start(&mut r, 10 * M);
    assert_eq!(f.alloc, LINK);
}

#[test]
fn syn_not_enough_capacity_gets_left_even_with_pause() {
    let mut r = router();
    let mut a = Flow::start(&mut r, 0);
    a.ask(&mut r, 0);
    let _b = Flow::start(&mut r, 0);
    // Nothing left: the pause changes nothing, line 12 then the floor.
    let c = Flow::start(&mut r, 20 * M);
    assert_eq!(c.alloc, BASE_GRANT);
}

#[test]
fn fin_returns_allocation_and_demand() {
    let mut r = router();
    let mut a = Flow::start(&mut r, 20 * M);
    let mut b = Flow::start(&mut r, 30 * M);
    a.ask(&mut r, 20 * M);
    b.ask(&mut r, 30 * M);
    assert_eq!(a.finish(&mut r), 0);
    assert_eq!(
        r.counters(),
        Counters {
            flows: 1,
            demand: 30 * M,
            allocated: b.alloc,
            capacity: LINK
        }
    );
    assert_eq!(b.finish(&mut r), 0);
    assert_eq!(
        r.counters(),
        Counters {
            flows: 0,
            demand: 0,
            allocated: 0,
            capacity: LINK
        }
    );
}

#[test]
fn fin_ignores_desired_rate_and_upstream_cap() {
    let mut r = router();
    let f = Flow::start(&mut r, 5 * M);
    let req = RateRequest {
        fin: true,
        desired: 99 * M,
        prev_desired: f.desired,
        prev_alloc: f.alloc,
        upstream_min: Some(1),
        ..RateRequest::default()
    };
    assert_eq!(r.handle_request(&req), 0);
    assert_eq!(r.counters().demand, 0);
    assert_eq!(r.counters().allocated, 0);
}

#[test]
fn repeated_requests_keep_allocated_equal_to_current_allocation() {
    let mut r = router();
    let mut f = Flow::start(&mut r, 0);
    for desired in [0, 40 * M, 80 * M, 200 * M, 3 * M, 0] {
        let a = f.ask(&mut r, desired);
        assert_eq!(r.counters().allocated, a);
        assert_eq!(r.counters().demand, desired);
        assert_eq!(r.counters().flows, 1);
    }
}

#[test]
fn syn_and_fin_count_flows() {
    let mut r = router();
    let flows: Vec<Flow> = (0..5).map(|i| Flow::start(&mut r, i * M)).collect();
    assert_eq!(r.counters().flows, 5);
    for f in flows.into_iter().take(2) {
        f.finish(&mut r);
    }
    assert_eq!(r.counters().flows, 3);
}

#[test]
fn fin_without_flows_saturates_at_zero() {
    let mut r = router();
    let stray = Flow {
        desired: 5 * M,
        alloc: 7 * M,
        hash: 0,
    };
    assert_eq!(stray.finish(&mut r), 0);
    assert_eq!(
        r.counters(),
        Counters {
            flows: 0,
            demand: 0,
            allocated: 0,
            capacity: LINK
        }
    );
}

#[test]
fn request_returning_more_than_allocated_saturates_at_zero() {
    let mut r = router();
    let mut f = Flow::start(&mut r, 0);
    // The host claims to return more than the port holds (a reset or quantization in between).
    f.alloc = 10 * LINK;
    f.desired = 10 * LINK;
    assert_eq!(f.ask(&mut r, 0), LINK);
    assert_eq!(r.counters().allocated, LINK);
    assert_eq!(r.counters().demand, 0);
}

#[test]
fn syn_and_fin_in_one_request_leave_counters_unchanged() {
    let mut r = router();
    let req = RateRequest {
        syn: true,
        fin: true,
        desired: 5 * M,
        ..RateRequest::default()
    };
    assert_eq!(r.handle_request(&req), 0);
    assert_eq!(
        r.counters(),
        Counters {
            flows: 0,
            demand: 0,
            allocated: 0,
            capacity: LINK
        }
    );
}

// ---- Timer contract ----

#[test]
fn new_first_timeout_one_interval_later() {
    let r = Router::new(config(), Instant::from_ps(5));
    assert_eq!(r.poll_timeout(), Some(Instant::from_ps(5) + T));
}

#[test]
fn timeout_before_due_is_noop() {
    let mut r = router();
    let _f = Flow::start(&mut r, 0);
    r.handle_timeout(Instant::ZERO + T - Duration::from_ps(1), 100_000);
    assert_eq!(r.counters().capacity, LINK);
    assert_eq!(r.poll_timeout(), Some(Instant::ZERO + T));
}

#[test]
fn timeout_late_schedules_next_from_now() {
    let mut r = router();
    let _f = Flow::start(&mut r, 0);
    let late = Instant::ZERO + Duration::from_us(2_000);
    // 2 ms at full rate over the 2 ms that actually passed: full use, C unchanged.
    r.on_bytes_sent(bytes_in(LINK, Duration::from_us(2_000)));
    r.handle_timeout(late, 0);
    assert_eq!(r.counters().capacity, LINK);
    assert_eq!(r.poll_timeout(), Some(late + T));
}

#[test]
fn timeout_queue_lowers_capacity_by_its_draining_rate() {
    // The link form's floor is a quarter of the link: C goes below it.
    let mut r = Router::new(link_form_config(), Instant::ZERO);
    let _f = Flow::start(&mut r, 0);
    r.on_bytes_sent(bytes_in(LINK, T));
    r.handle_timeout(Instant::ZERO + T, 10_000);
    assert_eq!(r.counters().capacity, LINK - 12_500_000);
    assert_eq!(r.counters().flows, 1);
}

#[test]
fn timeout_paper_queue_takes_capacity_back_down_to_the_link_and_no_further() {
    let mut r = router();
    let _f = Flow::start(&mut r, 0);
    // Half the link unused at C = link: C grows by 0.1 x 62.5 MB/s.
    r.on_bytes_sent(bytes_in(LINK, T) / 2);
    r.handle_timeout(Instant::ZERO + T, 0);
    assert_eq!(r.counters().capacity, LINK + LINK / 20);
    // A queue of 2 KB at full use (2.5 MB/s to drain in T): 6.25 + 0.625 − 2.5 MB/s above the
    // link. Then 10 KB: the β term (12.5 MB/s) takes C back to the link, not below.
    r.on_bytes_sent(bytes_in(LINK, T));
    r.handle_timeout(Instant::ZERO + T + T, 2_000);
    assert_eq!(r.counters().capacity, LINK + 4_375_000);
    r.on_bytes_sent(bytes_in(LINK, T));
    r.handle_timeout(Instant::ZERO + T + T + T, 10_000);
    assert_eq!(r.counters().capacity, LINK);
}

// ---- Soft state ----

#[test]
fn timeout_silent_interval_resets_counters_and_capacity() {
    let mut r = router();
    let mut leaked = Flow::start(&mut r, 20 * M);
    leaked.ask(&mut r, 20 * M);
    r.on_bytes_sent(bytes_in(LINK, T) / 2);
    r.handle_timeout(Instant::ZERO + T, 0);
    assert!(r.counters().capacity > LINK);
    // The flow dies without a FIN: the next interval is silent.
    r.handle_timeout(Instant::ZERO + T + T, 0);
    assert_eq!(
        r.counters(),
        Counters {
            flows: 0,
            demand: 0,
            allocated: 0,
            capacity: LINK
        }
    );
}

#[test]
fn timeout_interval_with_request_but_no_bytes_keeps_counters() {
    let mut r = router();
    let mut f = Flow::start(&mut r, 20 * M);
    r.handle_timeout(Instant::ZERO + T, 0);
    let before = r.counters();
    assert_eq!(before.flows, 1);
    // A request arrives, its packet not yet reported as sent.
    f.ask(&mut r, 20 * M);
    r.handle_timeout(Instant::ZERO + T + T, 0);
    assert_eq!(r.counters().flows, 1);
    assert_eq!(r.counters().allocated, f.alloc);
}

#[test]
fn timeout_silent_interval_with_queue_keeps_counters() {
    let mut r = router();
    let f = Flow::start(&mut r, 20 * M);
    r.handle_timeout(Instant::ZERO + T, 0);
    assert_eq!(r.counters().capacity, LINK + LINK / 10);
    // Nothing sent or asked this interval, but a queue stands (a paused port): not idle, so the
    // controller runs: + 0.1 x C for the unused capacity, − 6.25 MB/s to drain 5 KB in T.
    r.handle_timeout(Instant::ZERO + T + T, 5_000);
    assert_eq!(r.counters().flows, 1);
    assert_eq!(r.counters().allocated, f.alloc);
    assert_eq!(r.counters().capacity, (LINK + LINK / 10) * 11 / 10 - 6_250_000);
}

#[test]
fn timeout_no_flows_returns_capacity_to_link() {
    let mut r = router();
    let mut f = Flow::start(&mut r, 0);
    let mut now = Instant::ZERO;
    // A downstream bottleneck lets the flow use a fifth of the link: C winds up.
    for _ in 0..5 {
        f.ask(&mut r, 0);
        r.on_bytes_sent(bytes_in(LINK / 5, T));
        now += T;
        r.handle_timeout(now, 0);
    }
    assert!(r.counters().capacity > LINK + LINK / 5);
    f.finish(&mut r);
    // Some bytes still went out (other traffic), but no flow holds an allocation.
    r.on_bytes_sent(1_500);
    now += T;
    r.handle_timeout(now, 0);
    assert_eq!(
        r.counters(),
        Counters {
            flows: 0,
            demand: 0,
            allocated: 0,
            capacity: LINK
        }
    );
}

// ---- Capacity control in closed loop ----

/// The paper's 128 KB of buffer per port (Section 5).
const BUFFER: u64 = 128_000;

/// One port and its flows as fluids: each flow asks once per interval (its RTT is below T), then
/// sends at min(allocation, its downstream bottleneck) for the interval; the port sends at most
/// link x T, queues the rest up to its buffer and drops beyond.
struct FluidPort {
    router: Router,
    now: Instant,
    queue: u64,
    flows: Vec<(Flow, Option<Rate>)>,
}

impl FluidPort {
    /// Non-deadline flows, each with an optional downstream bottleneck, at a port of `config`.
    fn new(config: RouterConfig, downstream: &[Option<Rate>]) -> Self {
        let mut router = Router::new(config, Instant::ZERO);
        let flows = downstream
            .iter()
            .map(|&cap| (Flow::start(&mut router, 0), cap))
            .collect();
        FluidPort {
            router,
            now: Instant::ZERO,
            queue: 0,
            flows,
        }
    }

    /// One control interval; returns C after the update.
    fn step(&mut self) -> Rate {
        let mut offered = 0;
        for (flow, cap) in &mut self.flows {
            let a = flow.ask(&mut self.router, 0);
            offered += bytes_in(cap.map_or(a, |c| a.min(c)), T);
        }
        let backlog = self.queue + offered;
        let sent = backlog.min(bytes_in(LINK, T));
        self.queue = (backlog - sent).min(BUFFER);
        self.router.on_bytes_sent(sent);
        self.now += T;
        self.router.handle_timeout(self.now, self.queue);
        self.router.counters().capacity
    }
}

fn within(value: Rate, target: Rate, tolerance: f64) -> bool {
    (value as f64 - target as f64).abs() <= tolerance * target as f64
}

#[test]
fn control_link_form_burst_queue_drains_and_capacity_converges_to_link() {
    let mut port = FluidPort::new(link_form_config(), &[None; 10]);
    // A burst of new flows left a nearly full buffer behind.
    port.queue = 120_000;
    let trace: Vec<Rate> = (0..80).map(|_| port.step()).collect();
    let low = *trace.iter().min().unwrap();
    assert!(
        (LINK / 4..LINK / 2).contains(&low),
        "C dips to drain the queue: {low}"
    );
    assert_eq!(port.queue, 0);
    // From the dip on, C climbs back without overshooting the link: no oscillation.
    let dip = trace.iter().position(|&c| c == low).unwrap();
    for w in trace[dip..].windows(2) {
        assert!(w[1] >= w[0] && w[1] <= LINK, "{trace:?}");
    }
    assert!(within(trace[79], LINK, 0.01), "{}", trace[79]);
}

/// Five flows each held to 10 MB/s downstream (u/T stays at 40 % of the link, with no queue)
/// under `config`: C rises step by step and reaches the clamp of twice the link within 40 updates.
fn assert_downstream_bottleneck_grows_capacity_to_clamp(config: RouterConfig) {
    let mut port = FluidPort::new(config, &[Some(10 * M); 5]);
    let trace: Vec<Rate> = (0..40).map(|_| port.step()).collect();
    for w in trace.windows(2) {
        assert!(w[1] >= w[0]);
    }
    assert_eq!(*trace.last().unwrap(), 2 * LINK);
    assert_eq!(port.queue, 0);
}

#[test]
fn control_link_form_downstream_bottleneck_grows_capacity_up_to_clamp() {
    // The link form compares u/T with the link, which the held flows never fill.
    assert_downstream_bottleneck_grows_capacity_to_clamp(link_form_config());
}

#[test]
fn control_link_form_partial_downstream_bottleneck_converges_to_full_use() {
    // Two of four flows are held to 20 MB/s downstream. The others must take the rest:
    // 2 x 20 + 2 x C/4 = 125 gives C = 170 MB/s.
    let mut port = FluidPort::new(link_form_config(), &[Some(20 * M), Some(20 * M), None, None]);
    let trace: Vec<Rate> = (0..400).map(|_| port.step()).collect();
    let target = 170 * M;
    assert!(within(trace[399], target, 0.01), "{}", trace[399]);
    // Approached from below and never above target by more than a rounding error: no
    // overshoot, so no oscillation.
    for w in trace.windows(2) {
        assert!(w[1] >= w[0], "{trace:?}");
    }
    assert!(trace.iter().all(|&c| c <= target + 1_000));
    assert_eq!(port.queue, 0);
}

#[test]
fn control_printed_form_burst_queue_stands_while_flows_fill_the_link() {
    // The same burst under the printed controller: the β term takes C to its floor, the link,
    // and no lower. These fluid flows then send exactly the link's rate, so the queue neither
    // grows nor drains: what drains it on a real port is the allocation flows leave unused
    // (whole segments, the pause of a new flow), not the controller.
    let mut port = FluidPort::new(config(), &[None; 10]);
    port.queue = 120_000;
    let trace: Vec<Rate> = (0..80).map(|_| port.step()).collect();
    assert!(trace.iter().all(|&c| c == LINK), "{trace:?}");
    assert_eq!(port.queue, 120_000);
}

#[test]
fn control_printed_form_below_the_link_full_use_holds_capacity_there() {
    // With a floor of a quarter of the link, as the link form has: C falls below the link to
    // drain the queue, and since these fluid flows use every byte they are given,
    // u/T = C and nothing raises C again (the fixed point at any C; module docs of `capacity`).
    // Real flows leave allocation unused (whole segments, pauses), and C climbs by α times that.
    let low_floor = RouterConfig { capacity_min: LINK / 4, ..config() };
    let mut port = FluidPort::new(low_floor, &[None; 10]);
    port.queue = 120_000;
    let trace: Vec<Rate> = (0..80).map(|_| port.step()).collect();
    assert_eq!(trace[0], LINK / 4);
    assert_eq!(port.queue, 0);
    assert!(trace.iter().all(|&c| c == LINK / 4), "{trace:?}");
}

#[test]
fn control_printed_form_downstream_bottleneck_grows_capacity_up_to_clamp() {
    // The unused allocation drives C up (Section 4.4: "the resulting drop in utilization drives
    // up the capacity"), geometrically, to the clamp.
    assert_downstream_bottleneck_grows_capacity_to_clamp(config());
}

#[test]
fn control_printed_form_partial_downstream_bottleneck_overshoots_into_a_queue() {
    // Two of four flows are held to 20 MB/s downstream. C grows while their allocation goes
    // unused, past the 170 MB/s at which the others fill the link, because the printed form
    // compares u/T with C, not with the link: the free flows then overfill the port, the queue
    // cuts C back, and the port oscillates around full use instead of settling.
    let mut port = FluidPort::new(config(), &[Some(20 * M), Some(20 * M), None, None]);
    let trace: Vec<Rate> = (0..400).map(|_| port.step()).collect();
    assert!(trace.iter().any(|&c| c > 175 * M), "{trace:?}");
    let late = &trace[200..];
    let (low, high) = (*late.iter().min().unwrap(), *late.iter().max().unwrap());
    assert!(high - low > 10 * M, "still moving: {low}..{high}");
}

// ---- Accounting properties ----

/// What a host can do to a flow in a property run.
#[derive(Clone, Debug)]
enum Op {
    /// SYN (or a request, if the flow is already live).
    Start {
        flow: usize,
        desired: Rate,
        upstream: Option<Rate>,
    },
    /// A request (or a SYN, if the flow is not live).
    Ask {
        flow: usize,
        desired: Rate,
        upstream: Option<Rate>,
    },
    /// FIN, if the flow is live.
    Finish { flow: usize },
    /// A control update with some traffic sent and a queue.
    Tick { queue: u64 },
}

fn desired_rate() -> impl Strategy<Value = Rate> {
    prop_oneof![Just(0), 0..3 * LINK]
}

fn op() -> impl Strategy<Value = Op> {
    let flow = 0..8usize;
    let upstream = proptest::option::of(0..2 * LINK);
    prop_oneof![
        (flow.clone(), desired_rate(), upstream.clone()).prop_map(|(flow, desired, upstream)| {
            Op::Start {
                flow,
                desired,
                upstream,
            }
        }),
        (flow.clone(), desired_rate(), upstream).prop_map(|(flow, desired, upstream)| Op::Ask {
            flow,
            desired,
            upstream
        }),
        flow.prop_map(|flow| Op::Finish { flow }),
        (0..200_000u64).prop_map(|queue| Op::Tick { queue }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the hosts do, as long as they echo back what they were given: A is exactly the
    /// sum of live allocations, D of live desired rates, N the live count, and every allocation
    /// respects the floor and the upstream cap.
    #[test]
    fn accounting_any_operations_counters_match_live_flows(
        ops in proptest::collection::vec(op(), 1..200),
        pause in any::<bool>(),
    ) {
        let mut r = Router::new(RouterConfig { new_flow_pause: pause, ..config() }, Instant::ZERO);
        let mut live: Vec<Option<Flow>> = vec![None; 8];
        let mut now = Instant::ZERO;
        for op in ops {
            match op {
                Op::Start { flow, desired, upstream } | Op::Ask { flow, desired, upstream } => {
                    let a = match &mut live[flow] {
                        Some(f) => f.ask_capped(&mut r, desired, upstream),
                        slot @ None => {
                            slot.insert(Flow::start_capped(&mut r, desired, upstream)).alloc
                        }
                    };
                    prop_assert!(a == BASE_GRANT || a > BASE);
                    if let (Some(up), true) = (upstream, a != BASE_GRANT) {
                        prop_assert!(a <= up);
                    }
                }
                Op::Finish { flow } => {
                    if let Some(f) = live[flow].take() {
                        prop_assert_eq!(f.finish(&mut r), 0);
                    }
                }
                Op::Tick { queue } => {
                    // Some bytes always go out, so a live flow is never mistaken for a leak.
                    r.on_bytes_sent(1_500);
                    now += T;
                    r.handle_timeout(now, queue);
                    let c = r.counters().capacity;
                    prop_assert!((LINK / 4..=2 * LINK).contains(&c));
                }
            }
            let flows = live.iter().flatten();
            let counters = r.counters();
            prop_assert_eq!(counters.flows, flows.clone().count() as u64);
            prop_assert_eq!(counters.allocated, flows.clone().map(|f| held(f.alloc)).sum::<Rate>());
            prop_assert_eq!(counters.demand, flows.map(|f| f.desired).sum::<Rate>());
        }
    }

    /// Hosts that lie (any values in any field) cannot make the router panic, and every
    /// allocation still respects the floor.
    #[test]
    fn robustness_arbitrary_requests_never_panic(
        reqs in proptest::collection::vec(
            (
                any::<bool>(),
                any::<bool>(),
                any::<u64>(),
                any::<u64>(),
                any::<u64>(),
                proptest::option::of(any::<u64>()),
            ),
            1..100,
        ),
    ) {
        let mut r = router();
        for (syn, fin, desired, prev_desired, prev_alloc, upstream_min) in reqs {
            let req = RateRequest { syn, fin, desired, prev_desired, prev_alloc, upstream_min, flow_hash: 0 };
            let a = r.handle_request(&req);
            let ok = a == BASE_GRANT || (!fin && a > BASE);
            prop_assert!(ok, "allocation {} (fin: {})", a, fin);
        }
        r.on_bytes_sent(u64::MAX);
        r.on_bytes_sent(1);
        r.handle_timeout(Instant::ZERO + T, u64::MAX);
        prop_assert_eq!(r.counters().capacity, r.config().capacity_min);
    }
}

// ---- The 8-bit field and the base grant ----

/// The paper's router with the 8-bit field.
fn quantized() -> Router {
    Router::new(
        RouterConfig {
            field: RateField::new(true, LINK),
            ..config()
        },
        Instant::ZERO,
    )
}

/// The repaired router with the 8-bit field.
fn quantized_repaired() -> Router {
    Router::new(
        RouterConfig {
            field: RateField::new(true, LINK),
            ..repaired_config()
        },
        Instant::ZERO,
    )
}

#[test]
fn quantized_grants_truncate_and_base_grant_counts_base_rate_exactly() {
    let mut r = quantized();
    // 31 units asked (a host rounds its need up): granted 31 + the new flow's base rate,
    // truncated to whole units, so 31 units.
    let a = Flow::start(&mut r, 31 * M);
    assert_eq!(a.alloc, 31 * M);
    // A flow without a deadline starts at the base grant, counted as the base rate, not as a
    // unit of the field (the paper's 62 B per 300 us).
    let b = Flow::start(&mut r, 0);
    assert_eq!(b.alloc, BASE_GRANT);
    assert_eq!(r.counters().allocated, 31 * M + BASE);
    // Hosts return exactly what the header carried, so A stays the exact sum.
    let (mut a, mut b) = (a, b);
    a.ask(&mut r, 31 * M);
    b.ask(&mut r, 0);
    assert_eq!(a.alloc % M, 0);
    assert_eq!(b.alloc % M, 0);
    assert_eq!(r.counters().allocated, held(a.alloc) + held(b.alloc));
}

#[test]
fn quantized_fair_share_truncated_with_remainder_carried_sums_to_capacity() {
    let mut r = quantized_repaired();
    let mut flows: Vec<Flow> = (0..90).map(|_| Flow::start(&mut r, 0)).collect();
    for f in &mut flows {
        f.ask(&mut r, 0);
    }
    // fs = 125 / 90 = 1.39 units: truncated, one unit each would leave 35 units idle; with the
    // remainder carried, grants of one and two units alternate and sum to the capacity, less
    // the part of a unit still carried, never more.
    assert!(flows.iter().all(|f| f.alloc == M || f.alloc == 2 * M));
    let twos = flows.iter().filter(|f| f.alloc == 2 * M).count();
    assert_eq!(twos, 34);
    assert_eq!(r.counters().allocated, 124 * M);
    assert!(r.remainder < M);
    // Exactly what Snippet 1 computed: 90 shares of 125 / 90 MB/s (integer division).
    assert_eq!(r.counters().allocated + r.remainder, 90 * (LINK / 90));
}

#[test]
fn quantized_paper_fair_share_truncated_on_its_own_leaves_units_idle() {
    let mut r = quantized();
    let mut flows: Vec<Flow> = (0..90).map(|_| Flow::start(&mut r, 0)).collect();
    for f in &mut flows {
        f.ask(&mut r, 0);
    }
    // fs = 125 / 90 = 1.39 units, truncated to one unit for every flow: 35 units stay idle
    // until the controller raises C (it does: u/T is then below C).
    assert!(flows.iter().all(|f| f.alloc == M), "{flows:?}");
    assert_eq!(r.counters().allocated, 90 * M);
    assert_eq!(r.remainder, 0);
}

#[test]
fn sub_unit_share_paper_pauses_every_flow_until_printed_controller_raises_capacity() {
    // 200 flows without deadlines: fs = 0.625 units truncates to the base grant for all of them.
    // Paused, they send only their requests, u/T is far below C, and the printed controller
    // raises C by 10% an interval until (C − D) / N reaches one unit (C >= 200 units, within
    // the 250 of the 2 x link clamp); from then on every flow is granted a unit.
    let mut r = quantized();
    let mut flows: Vec<Flow> = (0..200).map(|_| Flow::start(&mut r, 0)).collect();
    let mut now = Instant::ZERO;
    let mut first_grant = None;
    for interval in 0..20 {
        let granted = flows.iter_mut().map(|f| f.ask(&mut r, 0)).filter(|&a| a != BASE_GRANT).count();
        if granted > 0 {
            assert_eq!(granted, 200, "all or none, interval {interval}");
            first_grant.get_or_insert(interval);
        }
        // Each flow's 62 B request per interval, nothing else.
        r.on_bytes_sent(if granted > 0 { bytes_in(LINK, T) } else { 200 * 62 });
        now += T;
        r.handle_timeout(now, 0);
    }
    // C(k+1) = 1.1 C(k) − 0.1 x 15.5 MB/s of requests: 136.0, 148.0, 161.3, 175.8, 191.8 and
    // 209.4 units after the sixth update, the first at or above 200.
    assert_eq!(first_grant, Some(6));
}

#[test]
fn sub_unit_share_paper_beyond_the_ceiling_pauses_for_good() {
    // 300 flows need C >= 300 units, beyond the 2 x link ceiling (250): none is ever served.
    let mut r = quantized();
    let mut flows: Vec<Flow> = (0..300).map(|_| Flow::start(&mut r, 0)).collect();
    let mut now = Instant::ZERO;
    for _ in 0..40 {
        assert!(flows.iter_mut().all(|f| f.ask(&mut r, 0) == BASE_GRANT));
        r.on_bytes_sent(300 * 62);
        now += T;
        r.handle_timeout(now, 0);
    }
    assert_eq!(r.counters().capacity, 2 * LINK);
}

// ---- Time slices ----

#[test]
fn time_slice_sub_unit_share_serves_one_group_per_interval() {
    let mut r = quantized_repaired();
    let n = 200u64;
    let mut flows: Vec<Flow> = (0..n).map(|_| Flow::start(&mut r, 0)).collect();
    // fs = 125 / 200 = 0.625 units: too small for the field. Pool after every flow's base rate:
    // 125 − 200 x 0.206667 = 83.67 MB/s, 418_333 B/s per flow; a slice of at least 5 MB/s
    // needs 12 groups, so 16, and each flow in the turn gets 16 x 418_333 = 6.69 MB/s.
    let per_flow = (LINK - n * BASE) / n;
    assert_eq!(per_flow, 418_333);
    let mut served = vec![Vec::new(); n as usize];
    let mut now = Instant::ZERO;
    for interval in 0..32u64 {
        let (mut turn, mut in_turn_flows) = (0, 0);
        for (i, f) in flows.iter_mut().enumerate() {
            let a = f.ask(&mut r, 0);
            let in_turn = u64::from(f.hash) % 16 == interval % 16;
            // 6.69 MB/s truncated to 6 units, with the carried remainder now and then 7.
            let ok = if in_turn { a == 6 * M || a == 7 * M } else { a == BASE_GRANT };
            assert!(ok, "flow {i} interval {interval}: {a}");
            if a != BASE_GRANT {
                served[i].push(interval);
                turn += a;
                in_turn_flows += 1;
            }
        }
        // Truncation with the remainder carried hands out no more than the slices computed
        // (and the part of a unit carried in),
        // which fill the pool left after every flow's base rate when the hash splits the flows
        // evenly (here 12 or 13 flows a turn, 12.5 on average).
        assert!(turn < in_turn_flows * 16 * per_flow + M, "interval {interval}: {turn}");
        assert!(in_turn_flows == 12 || in_turn_flows == 13);
        r.on_bytes_sent(bytes_in(LINK, T));
        now += T;
        r.handle_timeout(now, 0);
    }
    // Every flow is served once every 16 intervals.
    for s in &served {
        assert_eq!(s.len(), 2);
        assert_eq!(s[1] - s[0], 16);
    }
}

#[test]
fn time_slice_in_turn_even_when_port_looks_full() {
    let mut r = quantized_repaired();
    let mut flows: Vec<Flow> = (0..200).map(|_| Flow::start(&mut r, 0)).collect();
    // Flows of an earlier turn still hold their slices: A is above C.
    for f in flows.iter_mut().filter(|f| f.hash % 16 == 1) {
        f.alloc = 40 * M;
    }
    let taken: Rate = flows.iter().map(|f| held(f.alloc)).sum();
    r.allocated = taken;
    assert!(r.counters().allocated > LINK);
    // The turn's flows still get their slice; the others the base rate.
    for f in &mut flows {
        let a = f.ask(&mut r, 0);
        assert_eq!(a != BASE_GRANT, f.hash % 16 == 0);
    }
}

#[test]
fn time_slice_no_pool_left_one_flow_a_turn_still_served() {
    // 700 flows' base rates alone exceed the link: nothing is left to slice, but one flow a
    // turn (1024 groups) still gets a slice, so that flows keep finishing.
    let mut r = quantized_repaired();
    let mut flows: Vec<Flow> = (0..700).map(|_| Flow::start(&mut r, 0)).collect();
    for f in &mut flows {
        let a = f.ask(&mut r, 0);
        assert_eq!(a, if f.hash % 1024 == 0 { 5 * M } else { BASE_GRANT });
    }
}

// ---- The header and drops ----

#[test]
fn handle_header_reads_own_slot_writes_next_and_caps_by_upstream() {
    let mut r = router();
    let mut h = CongestionHeader {
        desired: 0,
        prev_alloc: [7 * M, 9 * M, 0, 0, 0, 0],
        index: 1,
        alloc: [30 * M, 0, 0, 0, 0, 0],
        ..CongestionHeader::default()
    };
    r.allocated = 9 * M;
    // Returned its 9 MB/s (slot 1), granted at most the upstream router's 30 MB/s.
    assert_eq!(r.handle_header(&mut h, 0), Grant::Granted { desired: 0, allocated: 30 * M });
    assert_eq!((h.index, h.alloc[1]), (2, 30 * M));
    assert_eq!(r.counters().allocated, 30 * M);
}

// ---- What handle_header returns ----

#[test]
fn handle_header_full_vector_is_untouched() {
    let mut r = router();
    let mut full = CongestionHeader {
        desired: 10 * M,
        index: MAX_HOPS as u8,
        ..CongestionHeader::default()
    };
    let before = (full, r.counters());
    let grant = r.handle_header(&mut full, 0);
    assert_eq!(grant, Grant::Untouched);
    assert!(!grant.took_part());
    assert_eq!((full, r.counters()), before);
}

#[test]
fn handle_header_fin_is_released() {
    let mut r = router();
    let f = Flow::start(&mut r, 10 * M);
    let mut fin = CongestionHeader {
        fin: true,
        desired: 10 * M,
        prev_desired: f.desired,
        prev_alloc: [f.alloc, 0, 0, 0, 0, 0],
        ..CongestionHeader::default()
    };
    let grant = r.handle_header(&mut fin, f.hash);
    assert_eq!(grant, Grant::Released);
    assert!(grant.took_part());
    assert_eq!((fin.index, fin.alloc[0]), (1, BASE_GRANT));
    assert_eq!(r.counters(), Counters { capacity: LINK, ..Counters::default() });
}

#[test]
fn handle_header_grant_is_what_the_slot_holds() {
    let mut r = router();
    // A deadline flow's SYN: its desired rate and, paused for its first RTT, the base rate on top.
    let mut syn = CongestionHeader { syn: true, desired: 10 * M, ..CongestionHeader::default() };
    let grant = r.handle_header(&mut syn, 1);
    assert_eq!(grant, Grant::Granted { desired: 10 * M, allocated: syn.alloc[0] });
    assert_eq!(syn.alloc[0], 10 * M + BASE);
    // More than the port has left: the grant falls short of the desire.
    let mut greedy = CongestionHeader { desired: 2 * LINK, ..CongestionHeader::default() };
    let Grant::Granted { desired, allocated } = r.handle_header(&mut greedy, 2) else { panic!("granted") };
    assert_eq!((desired, allocated), (2 * LINK, greedy.alloc[0]));
    assert!(allocated < desired);
    // A flow without a deadline asks for nothing and is granted its fair share.
    let mut plain = CongestionHeader { desired: 0, ..CongestionHeader::default() };
    let grant = r.handle_header(&mut plain, 3);
    assert_eq!(grant, Grant::Granted { desired: 0, allocated: plain.alloc[0] });
}

#[test]
fn handle_drop_paper_router_keeps_what_it_handed_out() {
    let mut r = router();
    let mut f = Flow::start(&mut r, 10 * M);
    f.ask(&mut r, 10 * M);
    let mut g = Flow::start(&mut r, 30 * M);
    g.ask(&mut r, 30 * M);
    let mut lost = CongestionHeader {
        desired: 20 * M,
        prev_desired: f.desired,
        prev_alloc: [f.alloc, 0, 0, 0, 0, 0],
        ..CongestionHeader::default()
    };
    assert!(r.handle_header(&mut lost, f.hash).took_part());
    let after = r.counters();
    r.handle_drop(&lost);
    // The grant nobody received stays counted: A holds g's allocation and the lost grant.
    assert_eq!(r.counters(), after);
    assert_eq!(after.allocated, held(g.alloc) + held(lost.alloc[0]));
}

#[test]
fn handle_drop_returns_grant_and_the_resent_request_balances() {
    let mut r = repaired();
    let mut f = Flow::start(&mut r, 10 * M);
    f.ask(&mut r, 10 * M);
    let before = r.counters();
    // The next request asks for 20 MB/s and is dropped at this port after the router saw it.
    let mut lost = CongestionHeader {
        desired: 20 * M,
        prev_desired: f.desired,
        prev_alloc: [f.alloc, 0, 0, 0, 0, 0],
        ..CongestionHeader::default()
    };
    assert!(r.handle_header(&mut lost, f.hash).took_part());
    r.handle_drop(&lost);
    // The flow holds its old allocation again; D already counts the lost request's 20 MB/s.
    assert_eq!(r.counters().allocated, before.allocated);
    assert_eq!(r.counters().demand, 20 * M);
    // The host re-sends: the lost request's r(t+1) as r(t), the allocation it still holds.
    let mut resent = CongestionHeader {
        desired: 20 * M,
        prev_desired: lost.desired,
        prev_alloc: lost.prev_alloc,
        ..CongestionHeader::default()
    };
    assert!(r.handle_header(&mut resent, f.hash).took_part());
    let c = r.counters();
    assert_eq!((c.flows, c.demand, c.allocated), (1, 20 * M, resent.alloc[0]));
    Flow { desired: resent.desired, alloc: resent.alloc[0], hash: f.hash }.finish(&mut r);
    let c = r.counters();
    assert_eq!((c.flows, c.demand, c.allocated), (0, 0, 0));
}

#[test]
fn handle_drop_of_syn_leaves_base_rate_for_the_resend_to_return() {
    let mut r = repaired();
    let mut syn = CongestionHeader {
        syn: true,
        desired: 10 * M,
        ..CongestionHeader::default()
    };
    assert!(r.handle_header(&mut syn, 3).took_part());
    r.handle_drop(&syn);
    let c = r.counters();
    assert_eq!((c.flows, c.demand, c.allocated), (1, 10 * M, BASE));
    // The re-sent SYN carries no SYN flag and returns the base grant it is taken to hold.
    let mut resent = CongestionHeader {
        desired: 10 * M,
        prev_desired: syn.desired,
        prev_alloc: [BASE_GRANT; MAX_HOPS],
        ..CongestionHeader::default()
    };
    assert!(r.handle_header(&mut resent, 3).took_part());
    let c = r.counters();
    assert_eq!((c.flows, c.demand, c.allocated), (1, 10 * M, held(resent.alloc[0])));
    // A dropped FIN stands: the host never re-sends it.
    let mut fin = CongestionHeader {
        fin: true,
        prev_desired: resent.desired,
        prev_alloc: resent.alloc,
        ..CongestionHeader::default()
    };
    assert!(r.handle_header(&mut fin, 3).took_part());
    r.handle_drop(&fin);
    let c = r.counters();
    assert_eq!((c.flows, c.demand, c.allocated), (0, 0, 0));
}
