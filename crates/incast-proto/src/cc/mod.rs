//! Congestion control policies over one shared window mechanism (neqo's `classic_cc` design).
//!
//! [`CongestionControl`] owns the window: RFC 5681 slow start and congestion avoidance with exact
//! byte counting, the RFC 6582 NewReno fast-recovery arithmetic, the RFC 5681 timeout response
//! and the RFC 3168 Section 6.1.2 rule that ECN cuts the window at most once per window of data.
//! A policy only decides how far to cut when ECN-Echo arrives and keeps whatever estimator that
//! decision needs; the stack decides how the skeleton itself grows, cuts and recovers, once per
//! connection, through a [`WindowConfig`]:
//!
//! ```text
//!         sender ── acked bytes, CE-marked bytes, loss, timeout ──► CongestionControl
//!   WindowConfig ── configure, once per connection ───────────────► │  window skeleton
//!                                                                   ▼
//!                                  Policy::{NewReno, Dctcp, D2tcp}: estimator + ecn_cut()
//! ```
//!
//! Policies are an enum matched per ACK, not a `Box<dyn>`. DCTCP and D2TCP share the alpha
//! estimator (`dctcp::AlphaEstimator`) and the proportional cut; D2TCP only adds the exponent d,
//! read from the deadline, remaining bytes and RTT in [`CutContext`].
//!
//! The module knows no transport: the sender that drives it reports to it as above and fills
//! its `WindowConfig` from its own configuration.

mod config;
mod cut;
mod d2tcp;
mod dctcp;
mod prr;
mod reno;
mod window;

pub use config::{DctcpLossCut, EcnReduction, LossBasis, WindowConfig, WindowGrowth};
pub use cut::{CutContext, DCTCP_DEFAULT_G, DCTCP_DEFAULT_INITIAL_ALPHA};
pub use d2tcp::{Clamp, D2tcpConfig, FixedD, RemainingBytes, TcUnits, D2TCP_DEFAULT_D_CAP};
pub(crate) use window::Outstanding;
pub use window::{CaState, CongestionControl};


/// Which congestion policy a flow uses; a [`CongestionControl`] is built from it per flow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CcKind {
    /// TCP NewReno (RFC 5681, RFC 6582) with RFC 3168 ECN: an ECN-Echo halves the window.
    NewReno,
    /// DCTCP (Alizadeh et al., SIGCOMM 2010, Section 3): cut in proportion to the fraction of
    /// marked bytes.
    Dctcp {
        /// Estimation gain g in (0, 1]; default [`DCTCP_DEFAULT_G`].
        g: f64,
        /// alpha of a new flow, in [0, 1]; default [`DCTCP_DEFAULT_INITIAL_ALPHA`].
        initial_alpha: f64,
    },
    /// D2TCP (Vamanan et al., SIGCOMM 2012, Section 3): DCTCP whose cut uses the penalty
    /// alpha^d, d from how close the flow is to missing its deadline.
    D2tcp(D2tcpConfig),
}

impl CcKind {
    /// DCTCP with the paper's gain g = 1/16, alpha starting at 1.
    pub const fn dctcp() -> Self {
        CcKind::Dctcp { g: DCTCP_DEFAULT_G, initial_alpha: DCTCP_DEFAULT_INITIAL_ALPHA }
    }
}

/// One acknowledgement as the window mechanism sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AckEvent {
    /// Bytes newly acknowledged cumulatively by this ACK (0 for a duplicate ACK).
    pub(crate) acked_bytes: u64,
    /// DeliveredData of RFC 6937: bytes the ACK newly reports as received, cumulatively or by
    /// SACK (bytes SACKed earlier and now acknowledged are not counted twice). Without SACK
    /// it equals `acked_bytes`.
    pub(crate) delivered_bytes: u64,
    /// Of the delivered bytes, those the receiver reported as CE-marked (all of them if ECE is
    /// set).
    pub(crate) ce_marked_bytes: u64,
    /// snd_una after the ACK.
    pub(crate) snd_una: u64,
    /// snd_nxt after the ACK.
    pub(crate) snd_nxt: u64,
    /// Whether the window limited sending since the previous ACK. The window grows only then
    /// (RFC 7661, Linux `tcp_is_cwnd_limited`): a sender held back by its NIC or by its data
    /// has not shown that the network can take a larger window.
    pub(crate) cwnd_limited: bool,
    /// Bytes in the network after the ACK: RFC 6675's pipe with SACK, else the flight less
    /// what duplicate ACKs say has left.
    pub(crate) pipe_bytes: u64,
    /// The ACK advanced snd_una and revealed no new loss (PRR's safe ACK, Linux's
    /// `FLAG_SND_UNA_ADVANCED && !newly_lost`).
    pub(crate) safe: bool,
    /// What ns-3's `ProcessAck` hands its congestion control for this ACK, with
    /// [`WindowConfig::ns3_bookkeeping`]; `None` otherwise.
    pub(crate) ns3: Option<Ns3Ack>,
}

/// One ACK as ns-3.44's congestion control sees it ([`WindowConfig::ns3_bookkeeping`]): what
/// `TcpSocketBase::ProcessAck` passes to `PktsAcked` and `IncreaseWindow`, and the socket
/// state `TcpDctcp::PktsAcked` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ns3Ack {
    /// `segmentsAcked` as `PktsAcked` and `IncreaseWindow` get it: whole segments, by
    /// ns-3's rules for the ACK's state.
    pub(crate) segments: u64,
    /// The whole segments the ACK delivered with ns-3's carry of bytes (0 if snd_una did not
    /// advance): what decides whether PRR steps on a partial ACK or during CWR.
    pub(crate) advanced_segments: u64,
    /// The ACK SACKed new data (ns-3's duplicate ACK, `scoreboardUpdated`).
    pub(crate) sack_updated: bool,
    /// The ACK starts loss recovery.
    pub(crate) starts_recovery: bool,
    /// The ACK cumulatively acknowledged a retransmitted segment in loss recovery (PRR's safe
    /// ACK in ns-3, `m_isRetransDataAcked`).
    pub(crate) acked_resent: bool,
    /// The sender's ECN state is ECE-received (`TcpSocketState::ECN_ECE_RCVD`), so DCTCP
    /// counts the segments as marked.
    pub(crate) ece_received: bool,
    /// `m_nextTxSequence`: one past the last segment sent, a resend included.
    pub(crate) next_tx: u64,
}

impl AckEvent {
    /// Bytes in flight after the ACK.
    pub(crate) fn flight_bytes(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }
}
