//! D3, deadline-aware explicit rate control (Wilson et al., "Better Never than Late: Meeting
//! Deadlines in Datacenter Networks", SIGCOMM 2011, Section 4): routers hand each flow a rate for
//! its next RTT from aggregate per-port counters.
//!
//! Every RTT a D3 sender asks each router on its path for a rate. The request carries what the
//! flow needs, r(t+1), and what it asked and was given last time, r(t) and [a(t)], so that a
//! router needs no per-flow state: it returns the old allocation and demand to its counters and
//! computes a new allocation (Snippet 1). A controller corrects the capacity the router hands out
//! every T from measured utilization and queue (Section 4.4).
//!
//! ```text
//!  host ── RateRequest{syn, fin, r(t+1), r(t), a(t), upstream min} ──► Router (one per port)
//!                                                                           │ N, D, A, C
//!  host ◄──────────── a(t+1) written into this router's slot of the header ─┘
//!
//!  port ── on_bytes_sent(bytes) ───────────────────► Router   u(t)
//!  timer ─ handle_timeout(now, queue_bytes) every T ► Router   C(t+1) from u(t) and q(t)
//! ```
//!
//! - [`rate`]: the base rate (rates themselves, integer bytes per second, are
//!   [`crate::rate`]'s, shared with PDQ).
//! - [`field`]: how the header carries rates ([`RateField`]: requests rounded up, grants
//!   truncated) and the base-rate grant ([`BASE_GRANT`]).
//! - [`router`]: the per-port allocator ([`Router`]), Sections 4.2-4.5, with its soft state, and
//!   incast's repairs as options (time slices when fair shares are too small for the header, the
//!   carried remainder, reclaimed grants of dropped requests).
//! - [`capacity`]: the Section 4.4 controller in three forms ([`Controller`]): as printed (the
//!   default), read the RCP way against the link, and fixed at the link (constants
//!   [`CONTROL_INTERVAL`], [`ALPHA`], [`BETA`]).

pub mod capacity;
pub mod field;
pub mod header;
pub mod host;
pub mod rate;
pub mod receiver;
pub mod router;

#[cfg(test)]
mod harness;
#[cfg(test)]
mod tests;

pub use capacity::{Controller, ALPHA, BETA, CONTROL_INTERVAL};
pub use field::{RateField, BASE_GRANT};
pub use header::{CongestionHeader, Feedback, D3_HEADER_BYTES, MAX_HOPS};
pub use host::{BaseGrant, D3Config, D3Segment, D3Sender, D3Stats, Pacing};
pub use rate::{base_rate, FULL_PACKET_BYTES, HEADER_ONLY_PACKET_BYTES, TYPICAL_RTT};
pub use receiver::D3Receiver;
pub use router::{Counters, Grant, RateRequest, Router, RouterConfig};
