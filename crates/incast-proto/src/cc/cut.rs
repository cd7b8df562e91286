//! What every congestion policy shares below the window mechanism: what it may look at when it
//! decides an ECN cut ([`CutContext`]), and DCTCP's constants, which D2TCP's defaults follow.

use crate::time::{Duration, Instant};

/// The DCTCP estimation gain g = 1/16 (DCTCP paper Section 3.4: g must satisfy
/// g < 1.386 / sqrt(2 (C x RTT + K)); 1/16 is the value of the paper's testbed).
pub const DCTCP_DEFAULT_G: f64 = 1.0 / 16.0;

/// alpha of a new DCTCP or D2TCP flow: 1, as in Linux (`dctcp_alpha_on_init` defaults to the
/// maximum). A new flow knows nothing about the path, so its first marks get the conservative
/// TCP-like halving; starting at 0 ignores marks for roughly 1/g windows while the estimate
/// climbs, which is when an incast burst of new flows overflows the queue. The DCTCP paper does
/// not say; the ns-2 scripts of the DCTCP and D2TCP era set `dctcp_alpha_ 0`, so scenarios may
/// choose (`[transport] dctcp_initial_alpha`).
pub const DCTCP_DEFAULT_INITIAL_ALPHA: f64 = 1.0;

/// What a policy may look at when it decides an ECN cut.
///
/// DCTCP needs only `cwnd_bytes`; D2TCP (Section 3: p = alpha^d, with d from the time the
/// remaining bytes need at the current window against the time left to the deadline) reads the
/// rest, so the sender passes it to every policy alike.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CutContext {
    /// Current time.
    pub now: Instant,
    /// Congestion window before the cut.
    pub cwnd_bytes: u64,
    /// Smoothed round-trip time (RFC 6298), if any sample was taken yet.
    pub srtt: Option<Duration>,
    /// Bytes not yet acknowledged (size - snd_una); `None` for a long-lived flow.
    pub remaining_bytes: Option<u64>,
    /// Bytes not yet sent (size - snd_nxt, so after a timeout's go-back-N the bytes to resend
    /// count again); `None` for a long-lived flow.
    pub unsent_bytes: Option<u64>,
    /// Absolute deadline of the flow, if it has one.
    pub deadline: Option<Instant>,
}
