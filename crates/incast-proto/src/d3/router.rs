//! The D3 per-port rate allocator (D3, SIGCOMM 2011, Sections 4.2-4.5): Snippet 1 over three
//! aggregate counters (N, D, A), the capacity controller of Section 4.4 and soft-state resets,
//! with no per-flow state.

use super::capacity::{CapacityControl, ALPHA, BETA, CONTROL_INTERVAL};
use super::rate::{base_rate, from_bits_per_sec, Rate, HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT};
use crate::time::{BitsPerSec, Duration, Instant};

/// Parameters of one port's allocator. [`RouterConfig::for_link`] gives the paper's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RouterConfig {
    /// Physical capacity of the port; the capacity controller steers towards full use of it.
    pub link_rate: Rate,
    /// Floor of every allocation: one header-only packet per RTT, so that a paused flow can still
    /// ask again (Section 4.2). Default [`base_rate`]`(`[`HEADER_ONLY_PACKET_BYTES`]`,
    /// `[`TYPICAL_RTT`]`)` = 206_667 B/s.
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
    /// Lowest value of the controlled capacity C. Default link / 4; see
    /// [`RouterConfig::for_link`] for why.
    pub capacity_min: Rate,
    /// Highest value of the controlled capacity C. Default 2 x link; see
    /// [`RouterConfig::for_link`] for why.
    pub capacity_max: Rate,
    /// Give a new flow (SYN) the base rate instead of a fair share of the spare capacity, pausing
    /// non-deadline flows for one RTT so that a burst of arrivals cannot over-allocate the port
    /// (Section 4.5). Default `true`.
    pub new_flow_pause: bool,
    /// Scale factor of the 8-bit rate field (D3 Section 5: rates in bytes/µs times a scale);
    /// `Some` rounds every allocation as the field will carry it *before* it is counted into A,
    /// so the a(t) a host later returns is exactly what was counted. `None` keeps exact rates.
    /// Default `None`.
    pub wire_scale: Option<u8>,
}

impl RouterConfig {
    /// The paper's configuration for a port of rate `link`.
    ///
    /// The paper gives no bounds for C; these are chosen here:
    ///
    /// - `capacity_max` = 2 x link. C rises above the link only to hand out allocations that
    ///   downstream bottlenecks leave unused. When such a bottleneck clears, every flow may use its
    ///   allocation within one RTT, so the port can be over-allocated by `capacity_max − link`.
    ///   At 2 x link that excess queues at most link x T per interval (100 KB at 1 Gbps and
    ///   T = 800 µs, within the paper's 128 KB per-port buffer, Section 5) and the β term
    ///   (q/T = link) removes it in one update, while flows that are not held back downstream can
    ///   still take up to twice their plain share.
    /// - `capacity_min` = link / 4. β = 1 removes the whole q/T in one step, although part of
    ///   that queue is already draining at link rate, so a single sample of a full 128 KB buffer
    ///   (q/T = 1.28 x link) would drive C below zero. The floor bounds that undershoot and the
    ///   recovery after it (about 19 intervals back to 90 % of the link at α = 0.1), while still
    ///   draining a queue as long as the base rates of paused flows sum to less than 3/4 of the
    ///   link (about 450 paused flows on a 1 Gbps port).
    pub const fn for_link(link: BitsPerSec) -> Self {
        let link_rate = from_bits_per_sec(link);
        RouterConfig {
            link_rate,
            base_rate: base_rate(HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT),
            control_interval: CONTROL_INTERVAL,
            alpha: ALPHA,
            beta: BETA,
            capacity_min: link_rate / 4,
            capacity_max: link_rate.saturating_mul(2),
            new_flow_pause: true,
            wire_scale: None,
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
///    port receives them and before the packet is queued: [`handle_request`](Self::handle_request),
///    and write the returned a(t+1) into this router's slot of the header. Packets without a
///    request header are forwarded untouched and never shown to the router.
/// 2. For every transmission, D3 or not: [`on_bytes_sent`](Self::on_bytes_sent) (per packet or
///    summed, as long as each byte is reported once and before the timeout that ends its interval).
/// 3. Arm a timer at [`poll_timeout`](Self::poll_timeout); when it fires,
///    [`handle_timeout`](Self::handle_timeout) with the port's queue length, then poll again.
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
///   any remainder is drift (duplicate FINs, allocations quantized by the header encoding), which
///   is discarded. More importantly C returns to the link rate: the controller raises C above the
///   link only to cover allocations left unused, and with no flows there are none. Without this,
///   the lightly used intervals of an idle port would wind C up to `capacity_max` and the next
///   burst of flows would be handed twice the link.
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
    /// When the current interval started.
    interval_start: Instant,
    /// When the next control update is due.
    next_update: Instant,
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
            interval_start: now,
            next_update: now + config.control_interval,
            config,
        }
    }

    /// The configuration the router runs with.
    pub fn config(&self) -> &RouterConfig {
        &self.config
    }

    /// Processes one rate request, Snippet 1 line by line, and returns a(t+1), the allocation for
    /// the flow's next RTT (0 for a FIN).
    ///
    /// Integer arithmetic only (Section 5). The paper's subtractions can go below zero; each is
    /// resolved at the line where it happens and explained there. Returned allocations count
    /// exactly into A, so as long as hosts echo back what they were given, A is exactly the sum of
    /// the live flows' current allocations.
    #[inline]
    pub fn handle_request(&mut self, req: &RateRequest) -> Rate {
        self.requests = self.requests.wrapping_add(1);
        // 2: if (new flow flag set) N = N + 1
        if req.syn {
            self.flows = self.flows.saturating_add(1);
        }
        // 3: A = A − a(t)  // Return current allocation
        // Saturating: a host can return more than A holds after a soft-state reset emptied A
        // while it was live, or when the header's quantized rates differ from what was counted.
        // A below zero would be credit for capacity nobody returned.
        self.allocated = self.allocated.saturating_sub(req.prev_alloc);
        if req.fin {
            // The flow leaves: it also takes its demand and its count with it, and no line 4-15.
            self.demand = self.demand.saturating_sub(req.prev_desired);
            self.flows = self.flows.saturating_sub(1);
            return 0;
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
        let spare = if req.syn && self.config.new_flow_pause {
            // Section 4.5: "When a new flow starts, the fair share assigned to its rate request
            // is set to base rate."
            self.config.base_rate
        } else {
            // 6: fs = (C − D) / N
            // Zero, not negative, when demand exceeds C: then "the router simply satisfies as
            // many requests as possible in the order of their arrival" (Section 4.3), and a
            // negative share would grant less than r(t+1) even with the capacity left to satisfy
            // it. N counts at least this flow, even if a reset or duplicate FINs lost it.
            self.capacity.saturating_sub(self.demand) / self.flows.max(1)
        };
        let mut alloc = if left > req.desired {
            // 7-9: enough capacity to satisfy request: a(t+1) = r(t+1) + fs
            req.desired.saturating_add(spare)
        } else {
            // 10-12: not enough capacity to satisfy request: a(t+1) = left capacity
            left
        };
        // Section 4.4: never more than a router before this one allocated, so capacity a flow
        // cannot use here (it is bottlenecked upstream) stays free for others. Applied before the
        // floor: upstream routers grant at least the base rate themselves, and if a faulty header
        // says otherwise the flow must still be able to send its next request.
        if let Some(upstream) = req.upstream_min {
            alloc = alloc.min(upstream);
        }
        // 14: a(t+1) = max(a(t+1), base rate)  // Flows get at least base rate
        alloc = alloc.max(self.config.base_rate);
        // What the header will say, counted as such.
        alloc = super::rate::on_the_wire(alloc, self.config.wire_scale);
        // 15: A = A + a(t+1)  // Update allocation counter
        self.allocated = self.allocated.saturating_add(alloc);
        alloc
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
    /// u(t) the bytes sent since the previous update and q(t) = `queue_bytes`, the port's queue
    /// now. The next update is one interval after `now`, so a late call does not trigger a burst
    /// of catch-up updates.
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
            self.capacity = self
                .control
                .next(self.capacity, self.sent_bytes, elapsed, queue_bytes);
        }
        self.sent_bytes = 0;
        self.requests = 0;
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
