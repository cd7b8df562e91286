//! The D3 per-port rate allocator (D3, SIGCOMM 2011, Sections 4.2-4.5): Snippet 1 over three
//! aggregate counters (N, D, A), the capacity controller of Section 4.4 and soft-state resets,
//! with no per-flow state; and, as options, incast's repairs of it (time slices, the carried
//! remainder, reclaimed grants of dropped requests).

use super::capacity::{CapacityControl, Controller, ALPHA, BETA, CONTROL_INTERVAL};
use super::field::{RateField, BASE_GRANT};
use super::header::{CongestionHeader, MAX_HOPS};
use super::rate::{base_rate, FULL_PACKET_BYTES, HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT};
use crate::rate::{from_bits_per_sec, Rate};
use crate::time::{BitsPerSec, Duration, Instant};

/// Parameters of one port's allocator. [`RouterConfig::for_link`] gives the paper's D3,
/// [`RouterConfig::repaired`] the same with incast's repairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouterConfig {
    /// Physical capacity of the port; the capacity controller steers towards full use of it.
    pub link_rate: Rate,
    /// The rate a flow holds at the base-rate grant, the floor of every allocation: one
    /// header-only packet per RTT, so that a paused flow can still ask again (Section 4.2).
    /// Counted into A exactly, whatever the header can express. Default
    /// [`base_rate`]`(`[`HEADER_ONLY_PACKET_BYTES`]`, `[`TYPICAL_RTT`]`)` = 206_667 B/s.
    pub base_rate: Rate,
    /// Capacity update interval T; must be non-zero. Default [`CONTROL_INTERVAL`] = 800 µs
    /// (D3 footnote 4).
    pub control_interval: Duration,
    /// Gain α on spare link bandwidth, finite and non-negative. Default [`ALPHA`] = 0.1
    /// (D3 footnote 4).
    pub alpha: f64,
    /// Gain β on the queue-draining rate, finite and non-negative. Default [`BETA`] = 1
    /// (D3 footnote 4).
    pub beta: f64,
    /// Which form of the Section 4.4 controller. Default [`Controller::Printed`], the equation
    /// as the paper prints it; see [`super::capacity`] for the three forms.
    pub controller: Controller,
    /// Lowest value of the controlled capacity C. Default the link (link / 4 in
    /// [`RouterConfig::link_form`]); see [`RouterConfig::for_link`] for why.
    pub capacity_min: Rate,
    /// Highest value of the controlled capacity C. Default 2 x link; see
    /// [`RouterConfig::for_link`] for why.
    pub capacity_max: Rate,
    /// Give a new flow (SYN) the base rate instead of a fair share of the spare capacity, pausing
    /// non-deadline flows for one RTT so that a burst of arrivals cannot over-allocate the port
    /// (Section 4.5). Default `true`.
    pub new_flow_pause: bool,
    /// How the header carries rates: every allocation is truncated as the field carries it
    /// *before* it is counted into A, so the a(t) a host later returns is exactly what was
    /// counted. Default [`RateField::Exact`].
    pub field: RateField,
    /// Time-slice the spare capacity when the fair share is below one unit of the field (see
    /// [`Router`], "Time slices"); incast's repair, not the paper's. Default `false`: the paper's
    /// router gives every flow the truncated share, the base rate when it truncates to nothing.
    pub time_slices: bool,
    /// The smallest grant of a time slice (see [`Router`], "Time slices"): one full-size packet
    /// per typical RTT, the paper's 40 Mbps (Section 4.5), so that a flow in its turn sends at
    /// least one whole segment per RTT. Default 5_000_000 B/s.
    pub slice_rate: Rate,
    /// Carry what truncation to the field cuts off the grants into the next grant (see
    /// [`Router`], "The base rate"); incast's repair, not the paper's. Default `false`: each
    /// grant is truncated on its own, as the paper's integer arithmetic computes it.
    pub carry_remainder: bool,
    /// Take back the grant of a request the port then drops ([`Router::handle_drop`]); incast's
    /// repair, not the paper's. Default `false`: the paper's router counts what it handed out, and
    /// a grant nobody received stays in A until the capacity controller covers it ("the
    /// resulting drop in utilization drives up the capacity", Section 4.4) or a reset clears it.
    pub reclaim_dropped: bool,
}

impl RouterConfig {
    /// The paper's configuration for a port of rate `link`: Snippet 1, the printed controller
    /// and footnote 4's gains, none of incast's repairs ([`RouterConfig::repaired`] has them).
    ///
    /// The paper gives no bounds for C. These are chosen here:
    ///
    /// - `capacity_min` = the link, the bound the text implies for the printed controller. Its
    ///   test of under-utilization is the one the text states, u/T < C ("when there is
    ///   under-utilization (u/T < C), the router compensates by allocating more total
    ///   capacity"), and it detects an idle link only while C is at least the link: below it,
    ///   flows that use what they are given make u/T = C however idle the link, and C stays
    ///   where a queue left it (measured: two long flows on a 1 Gbps star settle at 66 MB/s, 53%
    ///   of the link, for a whole 0.2 s run). Every reason Section 4.4 gives for moving C
    ///   (flows held back downstream, allocations never returned) calls for C above the link,
    ///   and the queue its β term answers is the one a burst makes when the router "temporarily
    ///   allocate\[s\] more bandwidth than its capacity": the term takes back the excess above
    ///   the link, and Snippet 1 answers requests with what is left (at worst the base rate)
    ///   until the flows that hold too much give it back.
    /// - `capacity_max` = 2 x link. C rises above the link only to hand out allocations that
    ///   downstream bottlenecks leave unused. When such a bottleneck clears, every flow may use its
    ///   allocation within one RTT, so the port can be over-allocated by `capacity_max − link`.
    ///   At 2 x link that excess queues at most link x T per interval (100 KB at 1 Gbps and
    ///   T = 800 µs, within the paper's 128 KB per-port buffer, Section 5) and the β term
    ///   (q/T = link) removes it in one update, while flows that are not held back downstream can
    ///   still take up to twice their plain share. The printed form grows C by a factor of up
    ///   to 1 + α per interval while allocations go unused, without limit but this one.
    ///
    /// [`RouterConfig::link_form`] lowers the floor to link / 4 for the link form, which does
    /// recover from below the link (an idle link always raises it): β = 1 removes the whole q/T
    /// in one step, although part of that queue is already draining at link rate, so a single
    /// sample of a full 128 KB buffer (q/T = 1.28 x link) would drive C below zero. The floor
    /// bounds that undershoot and the recovery after it (about 19 intervals back to 90 % of the
    /// link at α = 0.1). Paused flows hold exactly the base rate and pace their requests to it,
    /// so at the floor a port still drains its queue while fewer than about 450 flows are paused
    /// on 1 Gbps (3/4 of the link over 206_667 B/s each).
    pub const fn for_link(link: BitsPerSec) -> Self {
        let link_rate = from_bits_per_sec(link);
        RouterConfig {
            link_rate,
            base_rate: base_rate(HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT),
            control_interval: CONTROL_INTERVAL,
            alpha: ALPHA,
            beta: BETA,
            controller: Controller::Printed,
            capacity_min: link_rate,
            capacity_max: link_rate.saturating_mul(2),
            new_flow_pause: true,
            field: RateField::Exact,
            time_slices: false,
            slice_rate: base_rate(FULL_PACKET_BYTES, TYPICAL_RTT),
            carry_remainder: false,
            reclaim_dropped: false,
        }
    }

    /// The paper's configuration with incast's repairs, each of which keeps a port live where
    /// the paper's router stalls or leaves the link idle: time slices, the carried remainder and
    /// reclaimed grants of dropped requests (docs/scenario.md, `[d3]`, gives the reason for each).
    /// The controller is the paper's: the link form ([`Controller::Link`], incast's reading until
    /// 2026-11-26) is an option, not a repair (under sustained load it starves the port; see
    /// [`super::capacity`]).
    pub const fn repaired(link: BitsPerSec) -> Self {
        RouterConfig {
            time_slices: true,
            carry_remainder: true,
            reclaim_dropped: true,
            ..Self::for_link(link)
        }
    }

    /// RCP's reading of the controller ([`Controller::Link`]) with the floor it needs (see
    /// [`RouterConfig::for_link`]): incast's controller until 2026-11-26.
    pub const fn link_form(link: BitsPerSec) -> Self {
        RouterConfig {
            controller: Controller::Link,
            capacity_min: from_bits_per_sec(link) / 4,
            ..Self::for_link(link)
        }
    }

    /// Checks the configuration, naming the first bad field: a zero `control_interval` would fire
    /// the timer forever at one instant, non-finite or negative gains would make the controller
    /// meaningless, and `capacity_min > capacity_max` leaves no capacity to pick.
    pub fn validate(&self) -> Result<(), &'static str> {
        if self.control_interval == Duration::ZERO {
            return Err("control_interval must be non-zero");
        }
        if !(self.alpha.is_finite() && self.alpha >= 0.0) {
            return Err("alpha must be finite and non-negative");
        }
        if !(self.beta.is_finite() && self.beta >= 0.0) {
            return Err("beta must be finite and non-negative");
        }
        if self.capacity_min > self.capacity_max {
            return Err("capacity_min must not exceed capacity_max");
        }
        if self.base_rate == 0 {
            return Err("base_rate must be positive");
        }
        Ok(())
    }

    /// The capacity after a reset: the link rate, kept within the configured bounds.
    fn initial_capacity(&self) -> Rate {
        self.link_rate.clamp(self.capacity_min, self.capacity_max)
    }
}

/// What the router reads from one rate-request packet: this router's slot of the header's vectors,
/// already extracted by the caller (Section 4.3: "each rate request packet, apart from the desired
/// rate r(t+1), contains the rate requested in the previous interval (r(t)) and a vector of the
/// rates allocated in the previous interval ([a(t)])").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateRequest {
    /// The flow starts here (TCP SYN): N += 1. A retransmitted SYN must not carry the request
    /// again, or the flow is counted twice.
    pub syn: bool,
    /// The flow ends here (TCP FIN): it returns a(t) and r(t), N −= 1, and gets no new allocation.
    /// A retransmitted FIN must not carry the request again.
    pub fin: bool,
    /// r(t+1), the rate the flow needs to meet its deadline; 0 for a flow without a deadline.
    pub desired: Rate,
    /// r(t), the desired rate of the flow's previous request (0 on SYN).
    pub prev_desired: Rate,
    /// a(t), what this router allocated to the flow in the previous interval (0 on SYN).
    pub prev_alloc: Rate,
    /// The smallest allocation the routers before this one made in the current interval's vector,
    /// or `None` at the first router (Section 4.4: "a router ensures that its allocation is never
    /// more than that of the previous router").
    pub upstream_min: Option<Rate>,
    /// A hash of the flow's identity, uniform in its low bits (what a switch computes from the
    /// 5-tuple for ECMP): picks the flow's turn when the port time-slices (see [`Router`]).
    pub flow_hash: u32,
}

/// What one router did with the rate request a packet carries ([`Router::handle_header`]): the
/// outcome a driver acts on, and an observer measures, instead of reading the header's slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grant {
    /// The header's vectors were already full (a path longer than [`MAX_HOPS`] routers): this
    /// router did not take part, and the header and the counters are as they were.
    Untouched,
    /// A FIN: the flow returned its a(t) and r(t) here and was allocated nothing (Figure 7,
    /// step 5: the FIN "returns its existing allocation").
    Released,
    /// The flow asked for `desired`, r(t+1) (0 for a flow without a deadline, which gets its fair
    /// share), and the router allocated `allocated`, a(t+1), written into its slot of the header.
    /// Both as the header carries them: `allocated` is [`BASE_GRANT`] for the base rate.
    Granted {
        /// r(t+1).
        desired: Rate,
        /// a(t+1).
        allocated: Rate,
    },
}

impl Grant {
    /// Whether the router took part, and so must hear of a drop of the packet
    /// ([`Router::handle_drop`]).
    pub fn took_part(self) -> bool {
        self != Grant::Untouched
    }
}

/// A snapshot of a port's aggregate counters, for instrumentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// N, flows traversing the port (SYNs minus FINs, since the last reset).
    pub flows: u64,
    /// D, the sum of the live flows' desired rates.
    pub demand: Rate,
    /// A, the sum of the live flows' current allocations.
    pub allocated: Rate,
    /// C, the capacity the allocator currently hands out.
    pub capacity: Rate,
}

/// The D3 rate allocator of one output port: three counters and a capacity, no per-flow state.
///
/// Calling order, for a driver (the simulator's port, or a real forwarding path):
///
/// 1. For every packet leaving through this port that carries a D3 rate request, in the order the
///    port receives them and before the packet is queued:
///    [`handle_header`](Self::handle_header), which writes a(t+1) into this router's slot of the
///    header and returns the [`Grant`]. Packets without a request header are forwarded untouched
///    and never shown to the router. If the port then drops a packet whose header the router
///    took part in ([`Grant::took_part`]), call [`handle_drop`](Self::handle_drop) with that
///    header.
/// 2. For every transmission, D3 or not: [`on_bytes_sent`](Self::on_bytes_sent) (per packet or
///    summed, as long as each byte is reported once and before the timeout that ends its interval).
/// 3. Arm a timer at [`poll_timeout`](Self::poll_timeout); when it fires,
///    [`handle_timeout`](Self::handle_timeout) with the port's queue length, then poll again.
///
/// # The base rate
///
/// A flow the port cannot serve gets the base-rate grant ([`BASE_GRANT`]): one header-only
/// request next RTT (Section 4.2). The router counts exactly the configured base rate for it in A
/// and takes exactly that back when the flow returns it, whatever the header can express (the
/// 8-bit field has no value for 0.2 B/µs). Every other grant is truncated to what the field
/// carries before it is counted (Section 5's integer arithmetic in bytes/µs), so that A is the
/// exact sum of what live flows hold and never counts capacity the router did not hand out.
///
/// Truncation alone would waste up to a unit per flow: 90 flows with a fair share of 1.39 units
/// would get one unit each and leave 28 % of a 1 Gbps link idle (the paper's router, whose
/// printed controller then raises C until the truncated shares fill the link). With
/// [`RouterConfig::carry_remainder`] the router keeps
/// what truncation cut off in a running remainder (less than one unit, one counter per port)
/// and adds it to the next grant, so that grants of 1 and 2 units alternate and sum to what
/// Snippet 1 computed. This is the paper's own remedy for the discretization of packets at the
/// host ("the sender keeps a running counter of unused allocation that is added to the next
/// interval", Section 5), applied to the discretization of the field.
///
/// # Time slices
///
/// The paper's fair share (C − D)/N must be at least one unit of the field to reach a flow: on a
/// 1 Gbps port, more than about 125 flows without deadlines would all truncate to the base rate
/// and none would send until C rose above N units (the printed controller raises C by α times
/// the unused allocation every T, up to `capacity_max`; the link form never raises it above the
/// link while nothing goes unused, so they would never send again). With
/// [`RouterConfig::time_slices`], when the fair share is too small to carry, the port
/// time-slices its spare capacity instead of pausing everyone:
///
/// - the spare capacity left after deadline demand and every flow's base rate,
///   `pool = C − D − N x base`, is divided into `G` groups, `G` the smallest power of two that
///   gives a group's flows at least [`RouterConfig::slice_rate`] each (one full-size packet per
///   typical RTT), and at most the power of two at or above N;
/// - the turn moves to the next group at every control update (every T); a flow is in the turn
///   when the low bits of its [`RateRequest::flow_hash`] match the update count modulo `G`;
/// - a flow in its turn is granted at least `G x pool / N`, its share for the whole round, even
///   when the flows of the previous turn have not yet returned theirs (they do at their next
///   request, within one RTT); the others get the base rate.
///
/// **Bound.** Every flow is in the turn at least once every `G_max` control intervals, `G_max`
/// the largest `G` the port used, at most the power of two at or above the most flows it held.
/// A flow whose requests reach the port at least once per T (a paused flow's are paced every
/// 300 µs) is therefore granted at least a full-size packet per typical RTT within `G_max x T`,
/// as long as the pool is at least one slice (`C − D − N x base >= slice_rate`: fewer than about
/// 580 flows on 1 Gbps when no deadline flow takes capacity). Beyond that, the base rates of
/// paused flows alone fill the link: the paper's design can serve no more flows at once. Routers
/// whose control intervals are aligned (as in incast, where all start together) turn together,
/// and with `G` a power of two a flow in the turn of the port with the largest `G` on its path is
/// in the turn of every other, so the bound holds on the path.
///
/// # Soft state
///
/// Section 4.4 has the router reset "its counters" "during periods of low load" without saying
/// when. Here a control update finds the port *idle*, and resets N, D and A to zero and C to the
/// link rate, when its queue is empty and either
///
/// - the port sent no byte and handled no request during the whole interval. Every live D3 flow
///   sends at least one request per RTT (even a paused one, at base rate), and T exceeds the RTT
///   (footnote 4), so a silent interval means no flow is live and whatever the counters still hold
///   was leaked by hosts that never sent their FIN; or
/// - N is zero: the counters say no flow holds an allocation. A and D should then be zero too, and
///   any remainder is drift (duplicate FINs, requests lost downstream), which is discarded. More
///   importantly C returns to the link rate: with no flows there is no unused allocation for C
///   to cover above the link.
///
/// A reset the driver did not deserve (a flow whose RTT exceeded T) only makes A and N undercount
/// for a while: the port over-allocates, the queue grows and the β term takes C back down, which
/// is the paper's argument that "divergence from reality does not impact correctness".
#[derive(Clone, Debug)]
pub struct Router {
    /// Parameters, validated.
    config: RouterConfig,
    /// The capacity controller built from `config`.
    control: CapacityControl,
    /// N.
    flows: u64,
    /// D.
    demand: Rate,
    /// A.
    allocated: Rate,
    /// C.
    capacity: Rate,
    /// Bytes sent since the last control update, u(t).
    sent_bytes: u64,
    /// Requests handled since the last control update, for the silent-interval test.
    requests: u64,
    /// Control updates so far: the turn of the time slices.
    turn: u64,
    /// What truncation to the field has cut off the grants so far and not yet handed out (less
    /// than one unit), added to the next grant.
    remainder: Rate,
    /// When the current interval started.
    interval_start: Instant,
    /// When the next control update is due.
    next_update: Instant,
}

/// The share of spare capacity a request gets on top of its desired rate (Snippet 1 line 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Share {
    /// Snippet 1's fair share fs, or the base rate of a new flow's first RTT (Section 4.5).
    Fair(Rate),
    /// The port time-slices and the flow is in its turn: at least this much, even from a port
    /// that looks fully allocated.
    Turn(Rate),
}

impl Router {
    /// A port with no flows and C at the link rate; its first control update is one interval
    /// after `now`.
    ///
    /// # Panics
    ///
    /// If `config` fails [`RouterConfig::validate`]; scenario loading is expected to validate
    /// first and report the field.
    pub fn new(config: RouterConfig, now: Instant) -> Self {
        if let Err(e) = config.validate() {
            panic!("invalid D3 router configuration: {e}");
        }
        Router {
            control: CapacityControl {
                form: config.controller,
                link_rate: config.link_rate,
                interval: config.control_interval,
                alpha: config.alpha,
                beta: config.beta,
                min: config.capacity_min,
                max: config.capacity_max,
            },
            flows: 0,
            demand: 0,
            allocated: 0,
            capacity: config.initial_capacity(),
            sent_bytes: 0,
            requests: 0,
            turn: 0,
            remainder: 0,
            interval_start: now,
            next_update: now + config.control_interval,
            config,
        }
    }

    /// The configuration the router runs with.
    pub fn config(&self) -> &RouterConfig {
        &self.config
    }

    /// Processes the rate request a packet carries on its way out of this port: reads this
    /// router's slot of r(t) and [a(t)] at the header's index, computes a(t+1)
    /// ([`handle_request`](Self::handle_request)) and writes it into the slot, advancing the
    /// index. Returns what the router did: [`Grant::Untouched`], changing nothing, when the
    /// header's vectors are already full (a path longer than [`MAX_HOPS`] routers: this one
    /// cannot take part), [`Grant::Released`] for a FIN, else the [`Grant::Granted`] rate.
    #[must_use]
    pub fn handle_header(&mut self, header: &mut CongestionHeader, flow_hash: u32) -> Grant {
        let hop = usize::from(header.index);
        if hop >= MAX_HOPS {
            return Grant::Untouched;
        }
        let req = RateRequest {
            syn: header.syn,
            fin: header.fin,
            desired: header.desired,
            prev_desired: header.prev_desired,
            prev_alloc: header.prev_alloc[hop],
            upstream_min: header.alloc[..hop].iter().copied().min(),
            flow_hash,
        };
        let allocated = self.handle_request(&req);
        let recorded = header.record_alloc(allocated);
        debug_assert!(recorded, "slot {hop} is free");
        if header.fin {
            Grant::Released
        } else {
            Grant::Granted { desired: header.desired, allocated }
        }
    }

    /// The port dropped a packet whose request [`handle_header`](Self::handle_header) processed:
    /// the flow never learns its a(t+1), so the router takes it back and gives the flow back
    /// what it held before (its a(t), or the base rate after a SYN), which its host will return
    /// when it re-sends the request. N and D keep the request: the re-sent request carries this
    /// one's r(t+1) as its r(t) and no SYN flag, so they stay exact. A FIN's effect stands (the
    /// host does not re-send it).
    ///
    /// Only with [`RouterConfig::reclaim_dropped`]; otherwise a no-op, as in the paper, whose
    /// router hands out a grant before the packet is queued and never hears of it again.
    pub fn handle_drop(&mut self, header: &CongestionHeader) {
        if !self.config.reclaim_dropped {
            return;
        }
        let Some(hop) = usize::from(header.index).checked_sub(1) else { return };
        if header.fin || hop >= MAX_HOPS {
            return;
        }
        let base = self.config.base_rate;
        let before = if header.syn { base } else { RateField::held(header.prev_alloc[hop], base) };
        self.allocated = self
            .allocated
            .saturating_sub(RateField::held(header.alloc[hop], base))
            .saturating_add(before);
    }

    /// Processes one rate request, Snippet 1 line by line, and returns a(t+1), the allocation for
    /// the flow's next RTT, as the header carries it ([`BASE_GRANT`] for the base rate; also
    /// returned for a FIN, which is given nothing).
    ///
    /// Integer arithmetic only (Section 5). The paper's subtractions can go below zero; each is
    /// resolved at the line where it happens and explained there. What a grant holds is counted
    /// exactly, so as long as hosts echo back what they were given, A is exactly the sum of the
    /// live flows' current allocations.
    #[inline]
    pub fn handle_request(&mut self, req: &RateRequest) -> Rate {
        self.requests = self.requests.wrapping_add(1);
        let base = self.config.base_rate;
        if req.syn {
            // 2: if (new flow flag set) N = N + 1. A new flow holds nothing yet: its a(t) is
            // meaningless and not taken back.
            self.flows = self.flows.saturating_add(1);
        } else {
            // 3: A = A − a(t)  // Return current allocation
            // Saturating: a host can return more than A holds after a soft-state reset emptied A
            // while it was live. A below zero would be credit for capacity nobody returned.
            self.allocated = self.allocated.saturating_sub(RateField::held(req.prev_alloc, base));
        }
        if req.fin {
            // The flow leaves: it also takes its demand and its count with it, and no line 4-15.
            self.demand = self.demand.saturating_sub(req.prev_desired);
            self.flows = self.flows.saturating_sub(1);
            return BASE_GRANT;
        }
        // 4: D = D − r(t) + r(t+1)  // Update demand counter (saturating, as A above)
        self.demand = self
            .demand
            .saturating_sub(req.prev_desired)
            .saturating_add(req.desired);
        // 5: left capacity = C − A
        // Saturating at zero changes nothing: with left <= 0, line 7 fails for every r >= 0
        // and line 12 gives at most 0, which line 14 lifts to the base rate either way.
        let left = self.capacity.saturating_sub(self.allocated);
        let share = if req.syn && self.config.new_flow_pause {
            // Section 4.5: "When a new flow starts, the fair share assigned to its rate request
            // is set to base rate."
            Share::Fair(base)
        } else {
            self.share(req.flow_hash)
        };
        let extra = match share {
            Share::Fair(rate) | Share::Turn(rate) => rate,
        };
        let mut alloc = if left > req.desired {
            // 7-9: enough capacity to satisfy request: a(t+1) = r(t+1) + fs
            req.desired.saturating_add(extra)
        } else {
            // 10-12: not enough capacity to satisfy request: a(t+1) = left capacity
            left
        };
        if let Share::Turn(slice) = share {
            alloc = alloc.max(slice);
        }
        // Section 4.4: never more than a router before this one allocated, so capacity a flow
        // cannot use here (it is bottlenecked upstream) stays free for others.
        if let Some(upstream) = req.upstream_min {
            alloc = alloc.min(upstream);
        }
        // 14: a(t+1) = max(a(t+1), base rate)  // Flows get at least base rate
        // What the header carries: truncated, and the base grant at or below the base rate.
        let grant = self.truncate(alloc);
        // 15: A = A + a(t+1)  // Update allocation counter
        self.allocated = self.allocated.saturating_add(RateField::held(grant, base));
        grant
    }

    /// `alloc` as the header carries it, with the remainder that truncation cut off earlier
    /// grants added first (see [`Router`], "The base rate").
    fn truncate(&mut self, alloc: Rate) -> Rate {
        let base = self.config.base_rate;
        if !self.config.carry_remainder {
            return self.config.field.grant(alloc, base);
        }
        let carried = alloc.saturating_add(self.remainder);
        let grant = self.config.field.grant(carried, base);
        if grant != BASE_GRANT {
            // Below one unit, or the field's largest value cut more (then the excess is not
            // owed: no flow could have carried it).
            self.remainder = (carried - grant).min(self.config.field.unit() - 1);
        }
        grant
    }

    /// Snippet 1 line 6, fs = (C − D) / N, or the flow's time slice when fs is too small for
    /// the header to carry (see [`Router`], "Time slices").
    fn share(&self, flow_hash: u32) -> Share {
        let base = self.config.base_rate;
        // Zero, not negative, when demand exceeds C: then "the router simply satisfies as
        // many requests as possible in the order of their arrival" (Section 4.3), and a
        // negative share would grant less than r(t+1) even with the capacity left to satisfy
        // it. N counts at least this flow, even if a reset or duplicate FINs lost it.
        let flows = self.flows.max(1);
        let spare = self.capacity.saturating_sub(self.demand);
        let fair = spare / flows;
        if !self.config.time_slices || self.config.field.grant(fair, base) != BASE_GRANT {
            return Share::Fair(fair);
        }
        let per_flow = spare.saturating_sub(flows.saturating_mul(base)) / flows;
        // The slice must be a grant: above the base rate by at least one unit of the field.
        let slice = self
            .config
            .slice_rate
            .max(base.saturating_add(self.config.field.unit()));
        let most = flows.next_power_of_two();
        let groups = if per_flow == 0 { most } else { slice.div_ceil(per_flow).next_power_of_two().min(most) };
        let mask = groups - 1;
        if u64::from(flow_hash) & mask == self.turn & mask {
            // At least a slice, even when the pool is smaller: at most one flow a turn then.
            Share::Turn(per_flow.saturating_mul(groups).max(slice))
        } else {
            Share::Fair(0)
        }
    }

    /// Counts bytes the port transmitted, for the utilization u(t) of the current interval.
    #[inline]
    pub fn on_bytes_sent(&mut self, bytes: u64) {
        self.sent_bytes = self.sent_bytes.saturating_add(bytes);
    }

    /// When the next capacity update is due. Always `Some`: the controller runs for the life of
    /// the port (an idle port merely resets at each update).
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        Some(self.next_update)
    }

    /// Runs the capacity update if it is due at `now` (a no-op otherwise): either the soft-state
    /// reset of an idle port (see [`Router`]) or one step of the controller of Section 4.4 with
    /// u(t) the bytes sent since the previous update, q(t) = `queue_bytes`, the port's queue
    /// now, and A, the allocations it covers. The next update is one interval after `now`, so a
    /// late call does not trigger a burst of catch-up updates. Either way the time slices move
    /// to the next turn.
    pub fn handle_timeout(&mut self, now: Instant, queue_bytes: u64) {
        if now < self.next_update {
            return;
        }
        let silent = self.sent_bytes == 0 && self.requests == 0;
        if queue_bytes == 0 && (silent || self.flows == 0) {
            self.flows = 0;
            self.demand = 0;
            self.allocated = 0;
            self.capacity = self.config.initial_capacity();
        } else {
            let elapsed = now.saturating_since(self.interval_start);
            self.capacity = self.control.next(
                self.capacity,
                self.allocated,
                self.sent_bytes,
                elapsed,
                queue_bytes,
            );
        }
        self.sent_bytes = 0;
        self.requests = 0;
        self.turn = self.turn.wrapping_add(1);
        self.interval_start = now;
        self.next_update = now + self.config.control_interval;
    }

    /// The port's counters N, D, A and C.
    pub fn counters(&self) -> Counters {
        Counters {
            flows: self.flows,
            demand: self.demand,
            allocated: self.allocated,
            capacity: self.capacity,
        }
    }
}

#[cfg(test)]
mod tests;
