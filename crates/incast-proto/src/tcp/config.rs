//! Parameters of a TCP endpoint. `TcpConfig::default()` is the `d3-testbed` stack (the
//! Windows-era stacks of the D3 and DCTCP papers, as incast modelled them first); the named
//! stacks of [`Stack`] set every value at once, and a scenario may override single keys.
//!
//! The window rules among them belong to the congestion control, which the sender configures
//! with [`TcpConfig::window_config`]; their enums live in [`crate::cc`] and are re-exported
//! here, where the stacks name them.

pub use crate::cc::{DctcpLossCut, EcnReduction, LossBasis, WindowGrowth};
use crate::cc::WindowConfig;
use crate::time::Duration;

/// Delayed ACKs (RFC 1122 section 4.2.3.2): ACK every `segments` full segments or after `timeout`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DelayedAck {
    /// ACK at the latest after this many unacknowledged in-order segments (DCTCP paper: m = 2).
    pub segments: u32,
    /// ACK at the latest this long after the first unacknowledged segment.
    pub timeout: Duration,
    /// The first `quickack` in-order segments of a connection are acknowledged at once, as
    /// Linux's quick-ACK mode does at the start of a transfer (`tcp_incr_quickack`, at most
    /// `TCP_MAX_QUICKACKS` = 16), so that slow start is not slowed by delayed ACKs. 0 for the
    /// classic rule (ns-3, the papers' stacks).
    pub quickack: u32,
}

/// What a sender does when its window lets out less than one segment while more data waits.
///
/// RFC 5681 never lets cwnd fall below one segment, and Linux counts it in whole segments, so
/// a standard sender never meets this; a cut with no floor (`ecn_cut_floor_segments` 0) can
/// leave it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubSegmentWindow {
    /// With nothing in the network, send one segment anyway (as if the window were at least
    /// one segment); with data in the network, only a segment that fits.
    Send,
    /// Send a segment only if the usable window (cwnd - pipe) is at least one MSS, or if
    /// every byte left to send from that segment on fits it; otherwise wait for an ACK or the
    /// RTO. ns-3's silly-window check (ns-3.44 `TcpSocketBase::SendPendingData`,
    /// tcp-socket-base.cc line 3452: `availableWindow < m_segmentSize && availableData >
    /// availableWindow`; the same in ns-3.12, line 1323): a window below one segment with
    /// nothing in flight stalls the flow until the retransmission timer fires.
    Wait,
}

impl SubSegmentWindow {
    /// Whether a segment of `len` bytes may leave with `in_network` bytes in the network and a
    /// window of `window` bytes, when `left` bytes are still to send from its first byte on.
    pub(crate) fn allows(self, in_network: u64, window: u64, len: u64, left: u64, mss: u64) -> bool {
        match self {
            SubSegmentWindow::Send => in_network == 0 || in_network + len <= window,
            // ns-3 sends min(room, MSS) bytes once room >= MSS, or everything left once it fits.
            SubSegmentWindow::Wait => window.saturating_sub(in_network) >= mss.min(left).max(len),
        }
    }
}

/// Parameters of one TCP connection (sender and receiver).
///
/// The connection's window rules ([`WindowConfig`], from [`TcpConfig::window_config`]) come
/// from `mss_bytes`, `initial_window_segments`, `initial_ssthresh_bytes`,
/// `max_window_segments`, `window_growth`, `cwnd_validation`, `loss_basis`, `dctcp_loss_cut`,
/// `ecn_reduction`, `ecn_cut_floor_segments`, `ecn_cut_after_timeout`, `prr`, `recovery_in_cwr`
/// and `ns3_bookkeeping` (with `sack`); the sender reads some of them as well. The rest are
/// the sender's and the receiver's alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    /// Payload bytes of a full segment (the MSS). 1460 for a 1500 B MTU without options, 1448
    /// with timestamps, 536 in ns-3's `TcpSocket::SegmentSize` default.
    pub mss_bytes: u32,
    /// Count the RFC 7323 timestamp option on the wire: 12 bytes (10 and two NOPs) on every
    /// segment. Every segment carries a timestamp in the model either way (each ACK is an RTT
    /// sample); this only sets what it costs.
    pub timestamps: bool,
    /// Initial congestion window in segments. D3 Section 6: the testbed stack starts at 2.
    pub initial_window_segments: u32,
    /// Largest congestion window in segments; `None` is unlimited. pFabric's hosts cap it just
    /// above their initial window of one bandwidth-delay product (15 over 12 in pFabric's
    /// simulator, NetSys/simulator `max_cwnd`), since its ports, not the window, schedule.
    pub max_window_segments: Option<u32>,
    /// pFabric's probe mode: once this many retransmission timeouts have followed one another
    /// with no ACK in between, each further timeout resends one byte of the first hole instead
    /// of a segment, until any ACK arrives (the ns-2 MinTCP agent of pFabric's scripts,
    /// `prob_cap_` 5: its window is forced to one byte in `prob_mode_`). A flow its network
    /// keeps dropping then costs the others one small packet per timeout, not a full one.
    /// Needs `sack`; `None` never probes.
    pub probe_after_timeouts: Option<u32>,
    /// Initial ssthresh in bytes; `None` is unlimited (RFC 5681: "arbitrarily high"). ns-3.12
    /// started at 65535 B (`TcpSocket::SlowStartThreshold`).
    pub initial_ssthresh_bytes: Option<u64>,
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
    /// Selective acknowledgements: the receiver reports what it holds above a hole (RFC 2018)
    /// and the sender recovers by RFC 6675 (scoreboard, pipe, NextSeg), several holes per
    /// round trip. Without it loss recovery is NewReno's (RFC 6582), one hole per round trip.
    pub sack: bool,
    /// RFC 6675's rescue retransmission (NextSeg rule 4): once per recovery, resend the
    /// highest unSACKed segment when nothing else may be sent, so a lost tail is repaired
    /// without a timeout. ns-3 leaves it out (`TcpTxBuffer::NextSeg`).
    pub rescue_retransmission: bool,
    /// With SACK, a partial ACK in loss recovery (one that advances snd_una short of the
    /// recovery point) presumes the new first unacknowledged segment lost and resends it at
    /// once if it was not resent yet, as NewReno does without SACK (RFC 6582 Section 3.2 step
    /// 5). ns-3 does this (`TcpSocketBase::ProcessAck` calls `DoRetransmit` on partial ACKs);
    /// for Linux it stands in for RACK (RFC 8985), which declares such a segment lost once a
    /// segment sent after it is delivered. Without it a lost segment with nothing SACKed above
    /// it waits for the RTO.
    pub partial_ack_retransmit: bool,
    /// Proportional Rate Reduction (RFC 6937) sets the window during SACK loss recovery, so
    /// the sender keeps sending as ACKs return; without it cwnd = ssthresh at once (RFC 6675
    /// step 4.2). Needs `sack` (the scoreboard measures what was delivered).
    pub prr: bool,
    /// How an ECN-Echo lowers the window.
    pub ecn_reduction: EcnReduction,
    /// During an ECN reduction by PRR (the CWR state), duplicate ACKs still count towards
    /// loss recovery and PRR, as in Linux (`tcp_fastretrans_alert` enters recovery from CWR
    /// and `tcp_cwnd_reduction` runs on every ACK). `false` reproduces ns-3.44 to 3.48, whose
    /// `TcpSocketBase::DupAck` ignores the CA_CWR state: no fast retransmit and no PRR step on
    /// duplicate ACKs until the reduction ends, so losses during it wait for the RTO (the
    /// "DCTCP skips fast retransmit after an ECN-reduced window" defect).
    pub recovery_in_cwr: bool,
    /// Limited transmit (RFC 3042): the first two duplicate ACKs each release one new segment
    /// beyond the window. With SACK the pipe of RFC 6675 governs sending instead, as in Linux
    /// and ns-3, and this has no effect.
    pub limited_transmit: bool,
    /// How the window grows.
    pub window_growth: WindowGrowth,
    /// Grow the window only while it limits sending (RFC 7661, Linux's
    /// `tcp_is_cwnd_limited`); ns-3's `TcpNewReno` grows on every ACK.
    pub cwnd_validation: bool,
    /// What a loss (fast retransmit or timeout) halves into ssthresh.
    pub loss_basis: LossBasis,
    /// How DCTCP and D2TCP set ssthresh on a loss.
    pub dctcp_loss_cut: DctcpLossCut,
    /// Smallest window an ECN cut leaves, in segments: 2 in Linux (`dctcp_ssthresh`) and the
    /// RFC 5681 loss floor; 1 in the ns-3 D2TCP port of 2013; 0 for no floor, as ns-3.44's
    /// `TcpDctcp::GetSsThresh` (tcp-dctcp.cc line 124: `(1 - m_alpha / 2.0) * m_cWnd`), whose
    /// cut of a one-segment window is half a segment. A cut never leaves less than one byte.
    /// With [`DctcpLossCut::Alpha`] the loss cut is the same computation and has the same floor.
    pub ecn_cut_floor_segments: u32,
    /// An ECN-Echo on an ACK of new data after a retransmission timeout, before the data
    /// outstanding at the timeout is acknowledged, starts an ECN reduction (ssthresh from the
    /// ECN cut of the window the timeout left, then PRR in the CWR state). `false` ignores it,
    /// since the timeout already reduced the window for that data (RFC 3168 Section 6.1.2: at
    /// most one reduction per window of data; Linux's `tcp_enter_cwr` runs only from the Open
    /// and Disorder states). `true` reproduces ns-3.44 to 3.48: `TcpSocketBase::ReceivedAck`
    /// (tcp-socket-base.cc line 1919) calls `EnterCwr` in every state but CA_CWR, CA_LOSS
    /// included, and with DCTCP's cut of a one-segment window (`ecn_cut_floor_segments` 0) and
    /// [`SubSegmentWindow::Wait`] the flow then stalls until a second timeout.
    pub ecn_cut_after_timeout: bool,
    /// What the sender does with a window below one segment.
    pub sub_segment_window: SubSegmentWindow,
    /// The receiver takes a CE mark as congestion only on a segment that starts above every
    /// CE-marked segment it received before; any other segment, marked or not, counts as
    /// unmarked, so its ACK carries no ECN-Echo. ns-3.44's `TcpSocketBase::ForwardUp`
    /// (tcp-socket-base.cc line 1233: `m_ecnCESeq < tcpHeader.GetSequenceNumber ()`): a marked
    /// retransmission of a hole below marked data is echoed as unmarked. `false` echoes the
    /// mark of every segment (RFC 3168 Section 6.1.3, Linux's `tcp_ecn_check_ce`).
    pub ce_sequence_check: bool,
    /// The SYN and the pure ACKs of an ECN-capable flow (DCTCP, D2TCP) are ECN-capable too, so
    /// a queue above its threshold marks them rather than leaving them alone: ns-3.44's
    /// DctcpEcn mode (`ECN_RESTRICTION_MAP`, tcp-socket-base.cc lines 75 to 82). Marks on them
    /// change nothing at either end; they count at the ports (`ecn_marks_control`). `false`
    /// is RFC 3168's rule (Sections 6.1.1 and 6.1.4: no ECT on SYNs and pure ACKs).
    pub ect_control_packets: bool,
    /// ns-3.44's TCP bookkeeping, where its code departs from the RFCs and Linux in what a
    /// sender counts and when it may send. Each is cited where incast applies it; in short:
    ///
    /// - the SACK scoreboard (`TcpTxBuffer`): a retransmission stays in the pipe when it is
    ///   SACKed, until the cumulative ACK passes it (`m_retrans` is cleared only there,
    ///   tcp-tx-buffer.cc lines 593 to 627, not in `Update`, line 812); rules 1 and 3 of
    ///   NextSeg reach only below the highest SACKed segment (line 977), also after a timeout,
    ///   but up to the highest byte sent once no SACK information is left (`m_sackSeen`,
    ///   lines 756 to 760);
    /// - PRR (`TcpPrrRecovery`): RecoverFS is the pipe (line 64); the ACK that starts a
    ///   reduction and every duplicate ACK in recovery count one segment more than they
    ///   delivered (lines 66 and 76), and the ACK that starts a CWR reduction is counted twice
    ///   (`EnterCwr`, then `ProcessAck`'s CA_CWR branch, tcp-socket-base.cc lines 1671 and
    ///   2156); the proportional share is rounded up in bytes, not segments (line 90); the
    ///   slow-start bound's `prr_delivered - prr_out` is unsigned, so when more was sent than
    ///   delivered it wraps and the bound lets nothing out (line 95); an ACK is "safe" only if
    ///   it acknowledges a retransmission in loss recovery, never during CWR;
    /// - ACK processing (`TcpSocketBase::ProcessAck`): the congestion control sees whole
    ///   segments with a carry of bytes (line 2046), one per ACK that does not advance
    ///   snd_una (line 2038) and one per partial ACK in recovery (line 2108), and on leaving
    ///   recovery or the loss state the segments above the old head or the recovery point
    ///   (lines 2208 and 2226); the CWR state ends only on an ACK above its recovery point
    ///   (line 1896); a partial ACK in recovery sends, whatever the window, what NextSeg
    ///   chooses (a lost segment, else new data, else the head) unless a resent segment ends
    ///   one MSS above the ACK (line 2099; a resent tail shorter than that goes again), and
    ///   only the first one restarts the retransmission timer (line 2109); a timeout that
    ///   resends the segment the last one resent cuts ssthresh again, from the one segment
    ///   left (`ReTxTimeout` clears the retransmitted flags, line 3939, before it asks whether
    ///   the head was retransmitted, line 3961);
    /// - DCTCP (`TcpDctcp`, a `TcpLinuxReno`): alpha's first window ends at the
    ///   `m_nextTxSequence` of its first ACK, a window ends at the sequence after the last
    ///   segment sent (a resend included), and a segment counts as marked while the sender's
    ///   ECN state is ECE-received (tcp-dctcp.cc lines 128 to 150); the window grows as
    ///   `TcpLinuxReno` (slow start stops at ssthresh, then one segment per cwnd / MSS
    ///   segments acknowledged; tcp-linux-reno.cc lines 52 to 125), NewReno as `TcpNewReno`
    ///   (one segment per ACK of at least one segment).
    ///
    /// Needs `sack`: the `ns3` stack's choice, and without it the flag does nothing.
    pub ns3_bookkeeping: bool,
    /// Send a SYN and wait for the SYN/ACK before data (one RTT, as the three-way handshake of
    /// real stacks); the SYN/ACK's RTT sample seeds the RTO estimator. Read by `TcpSender`
    /// only; D3 pays its RTT with its own SYN rate request (D3 Figure 7).
    pub handshake: bool,
    /// With `handshake`: answer the SYN/ACK with a pure ACK of its own before the first data
    /// segment, as ns-3.44 does (`TcpSocketBase::ProcessSynSent`, tcp-socket-base.cc line 2373:
    /// `SendEmptyPacket(TcpHeader::ACK)`, then the data at line 2389), and Linux too
    /// (`tcp_rcv_synsent_state_process` calls `tcp_send_ack`). `false` folds it into the first
    /// data segment: one packet fewer per flow, which on a congested port shifts every later
    /// departure (docs/crosscheck/marks-gap.md). The `ns3` stack sends it; `linux` keeps it
    /// folded, so that its results stay as committed.
    pub handshake_ack: bool,
    /// Restart the window when a persistent connection's next message finds it idle (nothing
    /// in flight and no data sent for longer than the RTO): cwnd = min(cwnd, initial window),
    /// ssthresh kept at least 3/4 of the old cwnd (RFC 5681 Section 4.1, RFC 2861, Linux's
    /// `tcp_cwnd_restart` without its per-RTO halving). ns-3's TCP, the D2TCP paper's
    /// simulator (2012), kept the window across idle periods. Read by
    /// `TcpSender::push_message` only.
    pub restart_after_idle: bool,
}

impl Default for TcpConfig {
    /// The `d3-testbed` stack ([`Stack::D3Testbed`]).
    fn default() -> Self {
        TcpConfig {
            mss_bytes: super::MSS_BYTES,
            timestamps: false,
            initial_window_segments: 2,
            max_window_segments: None,
            probe_after_timeouts: None,
            initial_ssthresh_bytes: None,
            min_rto: Duration::from_ms(300),
            initial_rto: None,
            max_rto: Duration::from_secs(60),
            clock_granularity: Duration::from_us(1),
            delayed_ack: None,
            receive_window_bytes: None,
            dupack_threshold: 3,
            sack: false,
            rescue_retransmission: false,
            partial_ack_retransmit: false,
            prr: false,
            ecn_reduction: EcnReduction::Instant,
            recovery_in_cwr: true,
            limited_transmit: false,
            window_growth: WindowGrowth::Bytes,
            cwnd_validation: true,
            loss_basis: LossBasis::Flight,
            dctcp_loss_cut: DctcpLossCut::Half,
            ecn_cut_floor_segments: 2,
            ecn_cut_after_timeout: false,
            sub_segment_window: SubSegmentWindow::Send,
            ce_sequence_check: false,
            ect_control_packets: false,
            ns3_bookkeeping: false,
            handshake: false,
            handshake_ack: false,
            restart_after_idle: false,
        }
    }
}

impl TcpConfig {
    /// Header bytes of a data segment: IPv4 and TCP, with the timestamp option if counted.
    pub fn data_header_bytes(&self) -> u32 {
        super::HEADER_BYTES + if self.timestamps { super::segment::TIMESTAMP_OPTION_BYTES } else { 0 }
    }

    /// Header bytes of a pure ACK carrying `sack_blocks` SACK blocks.
    pub fn ack_header_bytes(&self, sack_blocks: usize) -> u32 {
        self.data_header_bytes() + super::segment::sack_option_bytes(sack_blocks)
    }

    /// Header bytes of a SYN or SYN/ACK: a data header and the SYN's own options (MSS, window
    /// scale, and SACK-permitted where timestamps do not make room for it).
    pub fn syn_header_bytes(&self) -> u32 {
        use super::segment::{SACK_PERMITTED_OPTION_BYTES, SYN_OPTION_BYTES};
        let sack_permitted = if self.sack && !self.timestamps { SACK_PERMITTED_OPTION_BYTES } else { 0 };
        self.data_header_bytes() + SYN_OPTION_BYTES + sack_permitted
    }

    /// SACK blocks that fit an ACK beside the other options: 4, or 3 with timestamps
    /// (RFC 2018 Section 3).
    pub fn max_sack_blocks(&self) -> usize {
        let used = self.data_header_bytes() - super::HEADER_BYTES;
        ((super::segment::MAX_OPTION_BYTES - used - 4) / 8) as usize
    }

    /// The MSS in bytes, as the window arithmetic uses it.
    pub fn mss(&self) -> u64 {
        u64::from(self.mss_bytes)
    }

    /// The window rules of this stack, for the connection's
    /// [`CongestionControl`](crate::cc::CongestionControl). ns-3's bookkeeping is that of SACK
    /// recovery, so without `sack` the window does not keep it either.
    pub fn window_config(&self) -> WindowConfig {
        WindowConfig {
            mss_bytes: self.mss(),
            initial_window_segments: self.initial_window_segments,
            initial_ssthresh_bytes: self.initial_ssthresh_bytes,
            max_window_segments: self.max_window_segments,
            growth: self.window_growth,
            cwnd_validation: self.cwnd_validation,
            loss_basis: self.loss_basis,
            dctcp_loss_cut: self.dctcp_loss_cut,
            ecn_reduction: self.ecn_reduction,
            ecn_cut_floor_segments: self.ecn_cut_floor_segments,
            ecn_cut_after_timeout: self.ecn_cut_after_timeout,
            prr_in_recovery: self.prr,
            prr_on_dupacks_in_cwr: self.recovery_in_cwr,
            ns3_bookkeeping: self.ns3_bookkeeping && self.sack,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `CongestionControl` starts with `WindowConfig::default()` until its sender configures
    /// it; both name the d3-testbed stack's rules.
    #[test]
    fn default_window_config_is_the_default_stacks() {
        assert_eq!(TcpConfig::default().window_config(), WindowConfig::default());
    }

    #[test]
    fn ns3_bookkeeping_reaches_the_window_only_with_sack() {
        let ns3 = TcpConfig { ns3_bookkeeping: true, ..TcpConfig::default() };
        assert!(!ns3.window_config().ns3_bookkeeping);
        assert!(TcpConfig { sack: true, ..ns3 }.window_config().ns3_bookkeeping);
    }
}
