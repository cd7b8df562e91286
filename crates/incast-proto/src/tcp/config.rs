//! Parameters of a TCP endpoint, each with the default the papers' stacks used.

use crate::time::Duration;

/// Delayed ACKs (RFC 1122 section 4.2.3.2): ACK every `segments` full segments or after `timeout`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelayedAck {
    /// ACK at the latest after this many unacknowledged in-order segments (DCTCP paper: m = 2).
    pub segments: u32,
    /// ACK at the latest this long after the first unacknowledged segment.
    pub timeout: Duration,
}

/// Parameters of one TCP connection (sender and receiver).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    /// Initial congestion window in segments. D3 Section 6: the testbed stack starts at 2.
    pub initial_window_segments: u32,
    /// Floor of the retransmission timeout. 300 ms in the Windows stacks of DCTCP and D3; the
    /// "reduced" settings of D3 Table 1 and the D2TCP evaluation use 10 ms and 20 ms.
    pub min_rto: Duration,
    /// RTO before any RTT sample: the SYN's with `handshake`, else the first data's. With an
    /// idle-network SYN RTT sample R, RFC 6298 gives max(min_rto, 3R) = min_rto, so `None`
    /// means "use `min_rto`".
    pub initial_rto: Option<Duration>,
    /// Ceiling of the backed-off RTO (RFC 6298 allows 60 s).
    pub max_rto: Duration,
    /// Clock granularity G of RFC 6298 (RTO = SRTT + max(G, 4 RTTVAR)).
    pub clock_granularity: Duration,
    /// Delayed ACKs; `None` ACKs every segment.
    pub delayed_ack: Option<DelayedAck>,
    /// Receiver's advertised window in bytes; `None` means unlimited.
    pub receive_window_bytes: Option<u64>,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupack_threshold: u32,
    /// Send a SYN and wait for the SYN/ACK before data (one RTT, as the three-way handshake of
    /// the D3 testbed's stacks); the SYN/ACK's RTT sample seeds the RTO estimator. Default
    /// `false`: data leaves at once. Read by `TcpSender` only; D3 pays its RTT with its own
    /// SYN rate request (D3 Figure 7).
    pub handshake: bool,
    /// Restart the window when a persistent connection's next message finds it idle (nothing
    /// in flight and no data sent for longer than the RTO): cwnd = min(cwnd, initial window),
    /// ssthresh kept at least 3/4 of the old cwnd (RFC 5681 Section 4.1, RFC 2861, Linux's
    /// `tcp_cwnd_restart` without its per-RTO halving). Default `false`: ns-3's TCP, the D2TCP
    /// paper's simulator (2012), kept the window across idle periods. Read by
    /// `TcpSender::push_message` only.
    pub restart_after_idle: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            initial_window_segments: 2,
            min_rto: Duration::from_ms(300),
            initial_rto: None,
            max_rto: Duration::from_secs(60),
            clock_granularity: Duration::from_us(1),
            delayed_ack: None,
            receive_window_bytes: None,
            dupack_threshold: 3,
            handshake: false,
            restart_after_idle: false,
        }
    }
}
