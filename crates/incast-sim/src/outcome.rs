//! What a flow reports at the end of a run beyond its times: the counters its endpoints kept,
//! read from a running transport (`flow`) or charged to one message of a persistent connection
//! (`connection`). Its own module so that both read it without importing each other.

use incast_proto::time::Duration;

/// The counters a flow reports, kept after its endpoints are freed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) delivered_bytes: u64,
    pub(crate) retransmitted_bytes: u64,
    pub(crate) timeouts: u32,
    /// D3: the host gave up on the flow (Section 6.1.3).
    pub(crate) quenched: bool,
    /// D3: time spent paused at the base rate.
    pub(crate) time_at_base_rate: Duration,
}
