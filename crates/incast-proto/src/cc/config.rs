//! The window rules a stack chooses: [`WindowConfig`] and the rules it is made of.
//!
//! Stacks differ in how the shared window mechanism grows, cuts and recovers (the RFCs, Linux
//! and ns-3 each read them their own way); these are the choices, in the units a stack is
//! described in (segments). A [`CongestionControl`](super::CongestionControl) takes them once
//! per connection and keeps them in bytes, so that no ACK converts them again. Whoever drives
//! the window fills a `WindowConfig`; the window mechanism needs nothing else from it.

/// How a DCTCP-family or ECN NewReno sender lowers its window after an ECN-Echo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnReduction {
    /// cwnd drops to the cut at once (the papers' stacks, ns-2, htsim).
    Instant,
    /// ssthresh drops to the cut and cwnd follows it over one round trip by Proportional Rate
    /// Reduction (RFC 6937), the way Linux applies ECN (the CWR state, `tcp_enter_cwr` and
    /// `tcp_cwnd_reduction`) and ns-3 does (`TcpSocketBase::EnterCwr` with `TcpPrrRecovery`):
    /// the sender keeps clocking out segments, so later losses are still detected by
    /// duplicate ACKs.
    Prr,
}

/// What a loss halves into ssthresh (RFC 5681 equation 4 and its readings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossBasis {
    /// FlightSize, the data outstanding (RFC 5681 equation 4, RFC 6675 step 4.2).
    Flight,
    /// RFC 6675's pipe, the data still in the network after the SACKs (ns-3's
    /// `TcpSocketBase::EnterRecovery` and `ReTxTimeout` pass `BytesInFlight ()`, which is pipe
    /// with SACK): under heavy loss this is well below the flight size.
    Pipe,
    /// The congestion window (Linux's `tcp_reno_ssthresh`: max(cwnd / 2, 2)).
    Cwnd,
}

/// How a DCTCP-family sender sets ssthresh on a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DctcpLossCut {
    /// Half, like NewReno (RFC 8257 Section 3.5; Linux's `dctcp_react_to_loss`).
    Half,
    /// cwnd x (1 - alpha / 2), the ECN cut (ns-3's `TcpDctcp::GetSsThresh` serves losses and
    /// ECN alike).
    Alpha,
}

/// How the congestion window grows on new ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowGrowth {
    /// Byte counting (RFC 3465, without its limit L, as Linux's `tcp_slow_start`): slow start
    /// adds the bytes an ACK acknowledges, congestion avoidance one MSS per window of bytes.
    Bytes,
    /// Per ACK (RFC 5681 equations 2 and 3 with the classic increments; ns-3's
    /// `TcpNewReno` from 3.12 to today): slow start adds one MSS per ACK of new data, however
    /// much it acknowledges, congestion avoidance MSS x MSS / cwnd (at least 1 byte) per ACK.
    /// With delayed ACKs the window grows half as fast.
    PerAck,
}

/// The window rules of one connection, fixed for its life.
///
/// `WindowConfig::default()` is the `d3-testbed` stack's: the RFC 5681 window with byte
/// counting, RFC 3168's instant ECN cut and no PRR. A new
/// [`CongestionControl`](super::CongestionControl) keeps these rules until it is configured
/// with a connection's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowConfig {
    /// One maximum segment in bytes, the unit of every window step (taken as at least 1).
    pub mss_bytes: u64,
    /// Initial window in segments (RFC 5681 IW); the window starts at one segment at least.
    pub initial_window_segments: u32,
    /// Initial ssthresh in bytes; `None` is unlimited (RFC 5681: "arbitrarily high").
    pub initial_ssthresh_bytes: Option<u64>,
    /// Largest window in segments (at least one); `None` is unlimited.
    pub max_window_segments: Option<u32>,
    /// How the window grows on new ACKs.
    pub growth: WindowGrowth,
    /// Grow only when the window limited sending (RFC 7661, Linux's `tcp_is_cwnd_limited`);
    /// `false` grows on every ACK, as ns-3's `TcpNewReno`.
    pub cwnd_validation: bool,
    /// What a loss (fast retransmit or timeout) halves into ssthresh.
    pub loss_basis: LossBasis,
    /// How a DCTCP-family policy sets ssthresh on a loss.
    pub dctcp_loss_cut: DctcpLossCut,
    /// How an ECN-Echo lowers the window.
    pub ecn_reduction: EcnReduction,
    /// Smallest window an ECN cut leaves, in segments (2 in Linux, 0 for none as in ns-3.44);
    /// with [`DctcpLossCut::Alpha`] the loss cut has the same floor. A cut never leaves less
    /// than one byte.
    pub ecn_cut_floor_segments: u32,
    /// An ECN-Echo on an ACK of new data after a retransmission timeout, before the data
    /// outstanding at the timeout is acknowledged, starts an ECN reduction, as ns-3.44's
    /// `EnterCwr` from CA_LOSS does. `false` lets the timeout's cut stand for that data (RFC
    /// 3168 Section 6.1.2: at most one reduction per window of data).
    pub ecn_cut_after_timeout: bool,
    /// Proportional Rate Reduction (RFC 6937) sets the window during SACK loss recovery;
    /// without it cwnd = ssthresh at once (RFC 6675 step 4.2).
    pub prr_in_recovery: bool,
    /// Duplicate ACKs step PRR during a CWR reduction, as in Linux; `false` steps it only on
    /// ACKs that advance snd_una, as ns-3.44's `TcpSocketBase::DupAck`, which ignores the
    /// CA_CWR state.
    pub prr_on_dupacks_in_cwr: bool,
    /// ns-3.44's bookkeeping of SACK recovery, where its code departs from the RFCs and
    /// Linux: each ACK then comes with ns-3's counts, and PRR starts from the pipe (ns-3's
    /// RecoverFS). A sender without SACK leaves it off.
    pub ns3_bookkeeping: bool,
}

impl Default for WindowConfig {
    /// The `d3-testbed` stack's window rules.
    fn default() -> Self {
        WindowConfig {
            // A 1500 B MTU less the IPv4 and TCP headers.
            mss_bytes: 1460,
            initial_window_segments: 2,
            initial_ssthresh_bytes: None,
            max_window_segments: None,
            growth: WindowGrowth::Bytes,
            cwnd_validation: true,
            loss_basis: LossBasis::Flight,
            dctcp_loss_cut: DctcpLossCut::Half,
            ecn_reduction: EcnReduction::Instant,
            ecn_cut_floor_segments: 2,
            ecn_cut_after_timeout: false,
            prr_in_recovery: false,
            prr_on_dupacks_in_cwr: true,
            ns3_bookkeeping: false,
        }
    }
}
