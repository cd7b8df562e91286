//! The progress watchdog (`[run] stall_after`, issue 39): a run that can no longer move is
//! stopped and says why, rather than running to its horizon (a simulated day, hours of wall
//! time) or for ever. Two tests, each kept off the per-event path:
//!
//! - **No progress** (runs without a `[run] duration`, which end when their flows do). Some
//!   flow is running (started, not ended: it still has bytes to get across) and has been since
//!   at least `span` ago, and no flow anywhere got a new byte to its receiver in order, or
//!   ended, in that `span`. Flows waiting for their start (a later round, a Poisson arrival to
//!   come) are not running, so an idle gap between flows is no stall. A run with a duration ends
//!   there however its flows fare, and what stalled flows miss until then is part of what it
//!   measures (D3's collapse under load, `d3-fig15` and `d3-sustained` in docs/results-d3.md):
//!   stopping it early would change its deadline counts, so this test leaves it alone. The engine
//!   notes the instant of each progress (a store where it already notes a flow's own,
//!   `Flow::stalls`); the test itself is a lazy timer: at `check_at`, either something moved and
//!   the next test is `span` after it, or the running flows are looked at, once per `span`. The
//!   loop reaches `check_at` through the limit it already gives the event queue, so no event is
//!   added and no result changes.
//! - **Timers without time.** Flows' and ports' timers fire faster than anything in the network
//!   can happen: more than [`TIMERS_PER_TICK`] live firings per running flow or port per *tick*,
//!   the serialization of the smallest packet on the fastest link (a port cannot send packets
//!   faster, and no legitimate timer fires more often than its flow sends or receives one). A
//!   timer of 1 ps fires 10^12 times a simulated second, while simulated time barely moves and
//!   bytes may still trickle through, so the first test alone would take days of wall time to
//!   see it. Tested every [`EVENTS_PER_CHECK`] events, a count the loop's own event budget
//!   reaches, over a window of simulated time that restarts every [`WINDOW_TICKS`] ticks.
//!
//! Both tests depend only on simulated time and event counts, never on how a driver chunks the
//! run, so a stalled run stops at the same instant every time.

use incast_proto::time::{BitsPerSec, Duration, Instant};

use crate::scenario::{StallAfter, DEFAULT_STALL_AFTER};

/// Events between two timer tests: often enough that a storm of timers is seen within a fraction
/// of a second of wall time, rarely enough that the test costs nothing.
pub(crate) const EVENTS_PER_CHECK: u64 = 1 << 20;

/// Live timer firings per running flow or port per tick that no legitimate run reaches: a port
/// sends at most one packet per tick, and a flow's timers fire at most about once per packet
/// it sends or receives (an RTO is at least a round trip, a delayed ACK or pacing timer fires
/// per segment), with bursts of a few dozen at most (an RFC 6298 timer of 1 ps backing off from
/// 1 ps fires 18 times in a 1 Gbps tick before reaching it). A timer that fires every picosecond
/// fires 320,000 times per 1 Gbps tick.
pub(crate) const TIMERS_PER_TICK: u64 = 64;

/// Ticks after which the timer test's window starts again, so that a storm that begins late in
/// a long run is measured against its own time, not the run's.
pub(crate) const WINDOW_TICKS: u64 = 4096;

/// Bytes of the smallest packet a transport sends: TCP/IP headers alone (a pure ACK).
const SMALLEST_PACKET_BYTES: u64 = incast_proto::tcp::ACK_WIRE_BYTES as u64;

/// Full-size packets on the slowest link that `stall_after = "auto"` waits at least: a packet
/// may wait behind a full default buffer (128 KB, 85 packets) before its bytes arrive.
const AUTO_PACKETS: u64 = 100;

/// First retransmission timeouts that `stall_after = "auto"` waits at least: a flow whose first
/// three sends are lost waits 1 + 2 + 4 of them.
const AUTO_TIMEOUTS: u64 = 7;

/// The span `stall_after` sets on a network whose slowest link is `slowest`, for flows whose
/// first timeout is `first_timeout`: `"auto"` is [`DEFAULT_STALL_AFTER`], or longer
/// where [`AUTO_PACKETS`] full-size packets on the slowest link or [`AUTO_TIMEOUTS`] first
/// timeouts take longer (a 1 Kbps link, `[transport] initial_rto = "3s"`, `[pfabric] rto`); the
/// first timeout is the longest of the run's transports' own (`Plugin::first_timeout`). `None`
/// when off.
pub(crate) fn span(stall_after: StallAfter, slowest: BitsPerSec, first_timeout: Duration) -> Option<Duration> {
    match stall_after {
        StallAfter::Off => None,
        StallAfter::After(span) => Some(span),
        StallAfter::Auto => {
            let packets = if slowest.0 == 0 { Duration::MAX } else { slowest.tx_time(1500).saturating_mul(AUTO_PACKETS) };
            Some(DEFAULT_STALL_AFTER.max(packets).max(first_timeout.saturating_mul(AUTO_TIMEOUTS)))
        }
    }
}

/// What made the watchdog stop a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stalled {
    /// `flows` running flows, at least one of them for the whole `span`, and no progress since
    /// `last_progress` (the run's start if none ever).
    NoProgress { flows: u64, last_progress: Instant, span: Duration },
    /// `flows` unfinished flows, and none of them can ever act again: no packet in the network,
    /// no flow timer pending, no flow left to start (`Simulation::stop_if_stalled`).
    Deadlock { flows: u64 },
    /// `fired` timer firings in `elapsed` of simulated time, with at most `components` running
    /// flows and ports, each allowed [`TIMERS_PER_TICK`] per `tick`.
    Timers { fired: u64, elapsed: Duration, components: u64, tick: Duration },
}

impl Stalled {
    /// What the watchdog saw, in one line: the running flows' protocols `labels` and the keys
    /// most likely behind it, and how to wait longer or turn the test off.
    pub(crate) fn reason(&self, labels: &[&str], keys: &[&str]) -> String {
        let likely = match keys {
            [] => String::new(),
            [key] => format!("; likely key: {key}"),
            [init @ .., last] => format!("; likely keys: {} or {last}", init.join(", ")),
        };
        match *self {
            Stalled::NoProgress { flows, last_progress, span } => format!(
                "no flow got a byte through for {} (none since {}) while {flows} unfinished flow{} of {} ran{likely} \
                 (run.stall_after = \"{}\": raise it, or set it to \"off\", to wait longer)",
                approx(span),
                if last_progress == Instant::ZERO { "the start".to_owned() } else { approx(last_progress.saturating_since(Instant::ZERO)) },
                if flows == 1 { "" } else { "s" },
                labels.join(", "),
                exact(span),
            ),
            Stalled::Deadlock { flows } => format!(
                "no flow can act again: {flows} unfinished flow{} of {} {} no packet in the network and no timer \
                 pending{likely}",
                if flows == 1 { "" } else { "s" },
                labels.join(", "),
                if flows == 1 { "has" } else { "have" },
            ),
            Stalled::Timers { fired, elapsed, components, tick } => format!(
                "timers fired {fired} times in {} of simulated time, more than {TIMERS_PER_TICK} per running flow or \
                 port ({components}) per {} (the fastest link's time for the smallest packet): faster than anything in \
                 the network can happen{likely} (run.stall_after = \"off\" turns this test off)",
                approx(elapsed),
                approx(tick),
            ),
        }
    }
}

/// `d` in the largest unit that writes it exactly, as a scenario file would (`"10s"`).
fn exact(d: Duration) -> String {
    let ps = d.as_ps();
    for (unit, scale) in [("s", 1_000_000_000_000u64), ("ms", 1_000_000_000), ("us", 1_000_000), ("ns", 1_000)] {
        if ps != 0 && ps.is_multiple_of(scale) {
            return format!("{}{unit}", ps / scale);
        }
    }
    format!("{ps}ps")
}

/// `d` to at most four decimals in a unit that reads easily (`"320 ns"`, `"12.3457 s"`).
fn approx(d: Duration) -> String {
    let ps = d.as_ps() as f64;
    let (value, unit) = [(1e12, "s"), (1e9, "ms"), (1e6, "us"), (1e3, "ns")]
        .into_iter()
        .find(|&(scale, _)| ps >= scale)
        .map_or((ps, "ps"), |(scale, unit)| (ps / scale, unit));
    format!("{} {unit}", format!("{value:.4}").trim_end_matches('0').trim_end_matches('.'))
}

/// The watchdog's state. Off (`span` None): `check_at` is never reached and the timer test never
/// due; without the no-progress test (a run with a duration) `check_at` is never reached.
#[derive(Debug)]
pub(crate) struct Watchdog {
    span: Option<Duration>,
    /// When the no-progress test runs next.
    check_at: Instant,
    /// The last instant a flow got new bytes to its receiver or ended.
    last_progress: Instant,
    /// Live timer firings so far.
    timers: u64,
    /// The event count at which the timer test runs next.
    count_check_at: u64,
    /// Where the timer test's window began: simulated time and the timers fired by then.
    window: (Instant, u64),
    /// The most flows running at once since the window began.
    running_peak: u64,
    /// The smallest packet's serialization on the fastest link.
    tick: Duration,
    /// Ports of the network.
    ports: u64,
}

impl Watchdog {
    /// A watchdog of `span` (None: off; [`span`] gives it), with the no-progress test if
    /// `no_progress_test` (a run without a duration), over `ports` ports whose fastest link is
    /// `fastest`.
    pub(crate) fn new(span: Option<Duration>, no_progress_test: bool, ports: u64, fastest: BitsPerSec) -> Watchdog {
        let tick = if fastest.0 == 0 { Duration::from_ps(1) } else { fastest.tx_time(SMALLEST_PACKET_BYTES).max(Duration::from_ps(1)) };
        Watchdog {
            span,
            check_at: span.filter(|_| no_progress_test).map_or(Instant::NEVER, |s| Instant::ZERO + s),
            last_progress: Instant::ZERO,
            timers: 0,
            count_check_at: if span.is_some() { EVENTS_PER_CHECK } else { u64::MAX },
            window: (Instant::ZERO, 0),
            running_peak: 0,
            tick,
            ports,
        }
    }

    /// When the no-progress test is due (`Instant::NEVER` when off): the event loop processes
    /// no event past it before the test has run.
    #[inline]
    pub(crate) fn check_at(&self) -> Instant {
        self.check_at
    }

    /// A flow got new bytes to its receiver, or ended, at `now`.
    #[inline]
    pub(crate) fn progress(&mut self, now: Instant) {
        // The latest, whatever the order of the calls: a run cut into parts runs them out of
        // time order between its parts.
        self.last_progress = self.last_progress.max(now);
    }

    /// A flow's or port's timer fired (not a stale event).
    #[inline]
    pub(crate) fn timer_fired(&mut self) {
        self.timers += 1;
    }

    /// Takes another engine's evidence (on several threads): its timers fired since the last
    /// call, and its latest progress.
    pub(crate) fn absorb(&mut self, other: &mut Watchdog) {
        self.timers += std::mem::take(&mut other.timers);
        self.last_progress = self.last_progress.max(other.last_progress);
    }

    /// A flow started; `running` flows run now.
    #[inline]
    pub(crate) fn flow_started(&mut self, running: u64) {
        self.running_peak = self.running_peak.max(running);
    }

    /// Events the loop may process, `events` processed so far, before the timer test is due.
    #[inline]
    pub(crate) fn events_before_check(&self, events: u64) -> u64 {
        self.count_check_at.saturating_sub(events).max(1)
    }

    /// The no-progress test at `at` (its `check_at`): `None` when a flow made progress since
    /// `at - span` (the next test is `span` after that progress), else the instant `at - span`:
    /// the engine then looks for flows running since then ([`Watchdog::running_since`]).
    pub(crate) fn progress_due(&mut self, at: Instant) -> Option<Instant> {
        let span = self.span?;
        let since = at - span;
        if self.last_progress > since {
            self.check_at = self.last_progress + span;
            return None;
        }
        Some(since)
    }

    /// The end of the no-progress test at `at`, no progress since `at - span`: `oldest` is the
    /// earliest start among the running flows (None if none runs) and `flows` how many run. A
    /// flow running since before `at - span` has got nothing through for the whole span, and
    /// neither has any other: the run has stalled. Otherwise the next test is due `span` after
    /// the oldest running flow started, or after `at` when no flow runs.
    pub(crate) fn running_since(&mut self, at: Instant, oldest: Option<Instant>, flows: u64) -> Option<Stalled> {
        let span = self.span?;
        match oldest {
            Some(start) if start + span <= at => Some(Stalled::NoProgress { flows, last_progress: self.last_progress, span }),
            Some(start) => {
                self.check_at = start + span;
                None
            }
            None => {
                self.check_at = at + span;
                None
            }
        }
    }

    /// Whether the timer test is due after `events` events.
    #[inline]
    pub(crate) fn timers_due(&self, events: u64) -> bool {
        events >= self.count_check_at
    }

    /// The timer test at `now`, after `events` events, `running` flows running now.
    pub(crate) fn check_timers(&mut self, now: Instant, events: u64, running: u64) -> Option<Stalled> {
        self.count_check_at = events.saturating_add(EVENTS_PER_CHECK);
        let (start, fired_before) = self.window;
        let fired = self.timers - fired_before;
        let elapsed = now.saturating_since(start);
        let components = self.ports + self.running_peak.max(running);
        let ticks = elapsed.as_ps() / self.tick.as_ps() + 2;
        if fired > TIMERS_PER_TICK.saturating_mul(components).saturating_mul(ticks) {
            return Some(Stalled::Timers { fired, elapsed, components, tick: self.tick });
        }
        if ticks > WINDOW_TICKS {
            self.window = (now, self.timers);
            self.running_peak = running;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incast_proto::time::BitsPerSec;

    fn at_us(us: u64) -> Instant {
        Instant::ZERO + Duration::from_us(us)
    }

    fn watchdog(span_us: u64) -> Watchdog {
        Watchdog::new(Some(Duration::from_us(span_us)), true, 8, BitsPerSec::GBPS)
    }

    #[test]
    fn auto_is_ten_seconds_unless_the_slowest_link_or_the_first_timeout_needs_longer() {
        let auto = |rate: u64, rto_ms: u64| span(StallAfter::Auto, BitsPerSec(rate), Duration::from_ms(rto_ms));
        assert_eq!(auto(1_000_000_000, 1_000), Some(Duration::from_secs(10)));
        // 100 packets of 1500 B at 1 Kbps: 1200 s.
        assert_eq!(auto(1_000, 1_000), Some(Duration::from_secs(1_200)));
        // ns-3's 3 s SYN timeout: 21 s.
        assert_eq!(auto(1_000_000_000, 3_000), Some(Duration::from_secs(21)));
        assert_eq!(span(StallAfter::Off, BitsPerSec::GBPS, Duration::ZERO), None);
        assert_eq!(span(StallAfter::After(Duration::from_ms(5)), BitsPerSec::GBPS, Duration::ZERO), Some(Duration::from_ms(5)));
    }

    #[test]
    fn with_a_duration_only_the_timer_test_runs() {
        let w = Watchdog::new(Some(Duration::from_secs(10)), false, 8, BitsPerSec::GBPS);
        assert_eq!(w.check_at(), Instant::NEVER);
        assert!(w.timers_due(EVENTS_PER_CHECK));
    }

    #[test]
    fn times_read_as_a_file_writes_them_and_as_people_do() {
        assert_eq!(exact(Duration::from_secs(10)), "10s");
        assert_eq!(exact(Duration::from_us(1_500)), "1500us");
        assert_eq!(approx(Duration::from_secs(10)), "10 s");
        assert_eq!(approx(Duration::from_ps(320_000)), "320 ns");
        assert_eq!(approx(Duration::from_ps(12_345_678_901_234)), "12.3457 s");
        assert_eq!(approx(Duration::ZERO), "0 ps");
    }

    #[test]
    fn the_reason_names_what_stalled_and_the_likely_keys() {
        let stalled = Stalled::NoProgress { flows: 3, last_progress: Instant::ZERO, span: Duration::from_secs(10) };
        let reason = stalled.reason(&["D3"], &["d3.capacity_max", "d3.capacity_min"]);
        assert_eq!(
            reason,
            "no flow got a byte through for 10 s (none since the start) while 3 unfinished flows of D3 ran; likely keys: \
             d3.capacity_max or d3.capacity_min (run.stall_after = \"10s\": raise it, or set it to \"off\", to wait longer)"
        );
    }

    #[test]
    fn the_reason_of_flows_that_can_never_act_again_says_so() {
        assert_eq!(
            Stalled::Deadlock { flows: 1 }.reason(&["PDQ"], &["pdq.flow_list"]),
            "no flow can act again: 1 unfinished flow of PDQ has no packet in the network and no timer pending; likely \
             key: pdq.flow_list"
        );
    }

    #[test]
    fn the_tick_is_a_pure_acks_serialization_on_the_fastest_link() {
        // 40 B at 1 Gbps: 320 ns.
        assert_eq!(watchdog(10).tick, Duration::from_ps(320_000));
    }

    #[test]
    fn off_it_never_tests() {
        let mut w = Watchdog::new(None, true, 8, BitsPerSec::GBPS);
        assert_eq!(w.check_at(), Instant::NEVER);
        assert!(!w.timers_due(u64::MAX - 1));
        assert_eq!(w.progress_due(at_us(1_000_000)), None);
    }

    #[test]
    fn progress_within_the_span_moves_the_test_to_a_span_after_it() {
        let mut w = watchdog(10);
        assert_eq!(w.check_at(), at_us(10));
        w.progress(at_us(7));
        assert_eq!(w.progress_due(at_us(10)), None);
        assert_eq!(w.check_at(), at_us(17));
        // Nothing since 7 us: at 17 us the flows are looked at.
        assert_eq!(w.progress_due(at_us(17)), Some(at_us(7)));
    }

    #[test]
    fn a_flow_running_for_the_whole_span_without_progress_is_a_stall() {
        let mut w = watchdog(10);
        assert_eq!(w.progress_due(at_us(10)), Some(at_us(0)));
        let stalled = w.running_since(at_us(10), Some(at_us(0)), 3);
        assert_eq!(stalled, Some(Stalled::NoProgress { flows: 3, last_progress: Instant::ZERO, span: Duration::from_us(10) }));
    }

    #[test]
    fn flows_that_started_within_the_span_are_given_the_span_from_their_start() {
        let mut w = watchdog(10);
        assert_eq!(w.progress_due(at_us(10)), Some(at_us(0)));
        assert_eq!(w.running_since(at_us(10), Some(at_us(4)), 1), None);
        assert_eq!(w.check_at(), at_us(14));
        assert_eq!(w.progress_due(at_us(14)), Some(at_us(4)));
        assert!(w.running_since(at_us(14), Some(at_us(4)), 1).is_some());
    }

    #[test]
    fn no_flow_running_is_an_idle_gap_not_a_stall() {
        let mut w = watchdog(10);
        assert_eq!(w.progress_due(at_us(10)), Some(at_us(0)));
        assert_eq!(w.running_since(at_us(10), None, 0), None);
        assert_eq!(w.check_at(), at_us(20));
    }

    #[test]
    fn the_test_always_moves_later() {
        let mut w = watchdog(10);
        for t in [10, 20, 25, 40] {
            let before = w.check_at();
            if w.progress_due(at_us(t)).is_some() {
                w.running_since(at_us(t), Some(at_us(t - 1)), 1);
            }
            assert!(w.check_at() > before, "at {t} us");
            w.progress(at_us(t));
        }
    }

    #[test]
    fn timers_at_a_ports_pace_pass_and_a_picosecond_timer_does_not() {
        // One flow on 8 ports, 1 Gbps: the budget is 64 x 9 per 320 ns tick.
        let mut w = watchdog(10);
        w.flow_started(1);
        // A timer per tick per port and flow for 2^20 events' worth of time: fine.
        let ticks = EVENTS_PER_CHECK;
        for _ in 0..9 * ticks {
            w.timer_fired();
        }
        assert!(w.timers_due(EVENTS_PER_CHECK));
        let now = Instant::ZERO + Duration::from_ps(320_000 * ticks);
        assert_eq!(w.check_timers(now, EVENTS_PER_CHECK, 1), None);
        assert!(!w.timers_due(EVENTS_PER_CHECK + 1));
        // Then a timer every picosecond: 2^20 firings in 2^20 ps (about 3 ticks).
        for _ in 0..EVENTS_PER_CHECK {
            w.timer_fired();
        }
        let later = now + Duration::from_ps(EVENTS_PER_CHECK);
        match w.check_timers(later, 2 * EVENTS_PER_CHECK, 1) {
            Some(Stalled::Timers { fired, components, .. }) => assert_eq!((fired, components), (EVENTS_PER_CHECK, 9)),
            other => panic!("{other:?}"),
        }
    }
}
