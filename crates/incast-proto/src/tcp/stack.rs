//! Named TCP stacks: every parameter of [`TcpConfig`] (and DCTCP's initial alpha) as one
//! implementation sets it, each value with its source. A scenario picks one with
//! `[transport] stack = "..."` and may override single keys.

use super::config::{DctcpLossCut, DelayedAck, EcnReduction, LossBasis, SubSegmentWindow, TcpConfig, WindowGrowth};
use crate::time::Duration;

/// ns-3's SYN timeout, `TcpSocket::ConnTimeout` (3 s from ns-3.12 to ns-3.44): the SYN's
/// timer, doubled per retry (`TcpSocketBase::SendEmptyPacket`), not the RTT estimator's
/// initial RTO. With the handshake it is the only RTO before the SYN/ACK's RTT sample.
const NS3_CONN_TIMEOUT: Duration = Duration::from_secs(3);

/// A TCP implementation whose defaults a scenario can start from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stack {
    /// Linux as datacenter hosts run it today (net/ipv4/tcp_input.c, tcp_output.c,
    /// tcp_dctcp.c): IW 10 (RFC 6928), timestamps (MSS 1448 on a 1500 B MTU), SACK with RFC
    /// 6675-style recovery and PRR, ECN reductions through the CWR state, byte counting,
    /// RTO floor 200 ms (`TCP_RTO_MIN`), initial RTO 1 s (`TCP_TIMEOUT_INIT`, RFC 6298), ceiling
    /// 120 s (`TCP_RTO_MAX`), delayed ACKs every 2 segments or
    /// 40 ms (`TCP_ATO_MIN`) after 16 quick ACKs (`TCP_MAX_QUICKACKS`), window restart after
    /// idle (`tcp_slow_start_after_idle` = 1). RACK (RFC 8985) is approximated by resending
    /// the first unacknowledged segment on partial ACKs in recovery. A loss halves cwnd
    /// (`tcp_reno_ssthresh`; DCTCP's too, `dctcp_react_to_loss`). Not modelled: tail loss
    /// probes (TLP) and the adaptive delayed-ACK timer.
    Linux,
    /// ns-3.44's `TcpSocketBase` and `TcpSocket` defaults: SegmentSize 536, InitialCwnd 10,
    /// timestamps, SACK, limited transmit, `TcpPrrRecovery`, MinRto 1 s, a SYN timeout of 3 s
    /// (`TcpSocket::ConnTimeout`), ClockGranularity
    /// 1 ms, DelAckCount 2 and DelAckTimeout 200 ms, `TcpNewReno`'s one segment per ACK in
    /// slow start, no cwnd validation, no rescue retransmission, the head resent on partial
    /// ACKs in SACK recovery (`TcpSocketBase::ProcessAck`), ssthresh from half the pipe on a
    /// loss and, for DCTCP, from the ECN cut with no floor (`TcpDctcp::GetSsThresh`), and its
    /// defects: duplicate ACKs ignored during an ECN reduction (`TcpSocketBase::DupAck` in
    /// CA_CWR), ECN-Echoes after a timeout entering CWR (`TcpSocketBase::ReceivedAck`), a
    /// window below one segment waiting for the RTO (`TcpSocketBase::SendPendingData`), and CE
    /// marks below the highest marked sequence echoed as unmarked (`TcpSocketBase::ForwardUp`);
    /// DCTCP's SYNs and pure ACKs are ECN-capable.
    Ns3,
    /// ns-3.12 to 3.15, the D2TCP paper's simulator (2012): SegmentSize 536, InitialCwnd 1,
    /// SlowStartThreshold 65535 B, one segment per new ACK in slow start, DelAckCount 2 /
    /// 200 ms, MinRTO 200 ms (`RttEstimator` MinRTO), no timestamps, no SACK, no limited
    /// transmit, cwnd = 1 MSS after an RTO, a SYN timeout of 3 s (`TcpSocket::ConnTimeout`;
    /// `RttEstimator`'s initial estimate of 1 s would time data sent before any RTT sample,
    /// which the handshake rules out); DCTCP as the 2013 ns-3 D2TCP
    /// port (i-maravic/ns-3) adds it: alpha from 0, an instant cut floored at one segment. The
    /// silly-window check of `TcpSocketBase::SendPendingData` is ns-3.12's too, though a
    /// window floored at one segment never meets it.
    Ns3_2012,
    /// The Windows-era stacks of the D3 testbed as incast first modelled them (D3 Section 6):
    /// IW 2, min RTO 300 ms, no options, no SACK (NewReno recovery), no delayed ACKs, no
    /// handshake, instant ECN cuts.
    D3Testbed,
}

impl Stack {
    /// Every stack, in documentation order.
    pub const ALL: [Stack; 4] = [Stack::Linux, Stack::Ns3, Stack::Ns3_2012, Stack::D3Testbed];

    /// The name used in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            Stack::Linux => "linux",
            Stack::Ns3 => "ns3",
            Stack::Ns3_2012 => "ns3-2012",
            Stack::D3Testbed => "d3-testbed",
        }
    }

    /// The TCP parameters of the stack.
    pub fn tcp_config(self) -> TcpConfig {
        let d3 = TcpConfig::default();
        match self {
            Stack::Linux => TcpConfig {
                mss_bytes: 1448,
                timestamps: true,
                initial_window_segments: 10,
                min_rto: Duration::from_ms(200),
                initial_rto: Some(Duration::from_secs(1)),
                max_rto: Duration::from_secs(120),
                delayed_ack: Some(DelayedAck { segments: 2, timeout: Duration::from_ms(40), quickack: 16 }),
                sack: true,
                partial_ack_retransmit: true,
                prr: true,
                ecn_reduction: EcnReduction::Prr,
                limited_transmit: true,
                loss_basis: LossBasis::Cwnd,
                handshake: true,
                restart_after_idle: true,
                ..d3
            },
            Stack::Ns3 => TcpConfig {
                mss_bytes: 536,
                timestamps: true,
                initial_window_segments: 10,
                min_rto: Duration::from_secs(1),
                initial_rto: Some(NS3_CONN_TIMEOUT),
                clock_granularity: Duration::from_ms(1),
                delayed_ack: Some(DelayedAck { segments: 2, timeout: Duration::from_ms(200), quickack: 0 }),
                sack: true,
                partial_ack_retransmit: true,
                prr: true,
                ecn_reduction: EcnReduction::Prr,
                limited_transmit: true,
                window_growth: WindowGrowth::PerAck,
                cwnd_validation: false,
                loss_basis: LossBasis::Pipe,
                dctcp_loss_cut: DctcpLossCut::Alpha,
                recovery_in_cwr: false,
                ecn_cut_floor_segments: 0,
                ecn_cut_after_timeout: true,
                sub_segment_window: SubSegmentWindow::Wait,
                ce_sequence_check: true,
                ect_control_packets: true,
                ns3_bookkeeping: true,
                handshake: true,
                handshake_ack: true,
                ..d3
            },
            Stack::Ns3_2012 => TcpConfig {
                mss_bytes: 536,
                initial_window_segments: 1,
                initial_ssthresh_bytes: Some(65_535),
                min_rto: Duration::from_ms(200),
                initial_rto: Some(NS3_CONN_TIMEOUT),
                delayed_ack: Some(DelayedAck { segments: 2, timeout: Duration::from_ms(200), quickack: 0 }),
                window_growth: WindowGrowth::PerAck,
                cwnd_validation: false,
                ecn_cut_floor_segments: 1,
                sub_segment_window: SubSegmentWindow::Wait,
                handshake: true,
                ..d3
            },
            Stack::D3Testbed => d3,
        }
    }

    /// DCTCP's (and D2TCP's) alpha for a new flow: 1 in Linux (`dctcp_alpha_on_init`) and
    /// ns-3 (`DctcpAlphaOnInit`); 0 in the ns-3 D2TCP port of 2013 and the ns-2 scripts of the
    /// papers' era; 1 for the D3 testbed, incast's earlier default.
    pub fn dctcp_initial_alpha(self) -> f64 {
        match self {
            Stack::Ns3_2012 => 0.0,
            Stack::Linux | Stack::Ns3 | Stack::D3Testbed => 1.0,
        }
    }
}

/// A pFabric host's TCP (pFabric, SIGCOMM 2013, Section 4.2), on incast's sender: it starts at
/// `initial_window_segments` (one bandwidth-delay product) and grows by one segment per ACK of
/// new data up to `max_window_segments`; it has no fast retransmit (the ns-2 MinTCP agent sets
/// `dynamic_dupack_` 1000000; pFabric's simulator has none either), so a loss waits for the
/// timeout, which is fixed at `rto`: no RTT estimate and no back-off (MinTCP's `rtt_timeout`
/// returns `minrto_`; YAPS arms `retx_timeout` as is). A timeout sets the window to one segment
/// and ssthresh to half the window (at least two segments), and resends every byte not SACKed.
/// Receivers ACK every packet at once with SACK blocks; there is no handshake. After
/// `probe_after` timeouts in a row (0: never) the flow is in probe mode: each further timeout
/// resends one byte of its first hole, until any ACK returns (the ns-2 MinTCP agent's
/// `prob_mode_`; YAPS has none). Segments carry 1460 B of payload under 40 B of headers, as in
/// pFabric's code (YAPS `params.cpp`: `mss` 1460, `hdr_size` 40).
pub fn pfabric_host(initial_window_segments: u32, max_window_segments: u32, rto: Duration, probe_after: u32) -> TcpConfig {
    TcpConfig {
        mss_bytes: super::MSS_BYTES,
        timestamps: false,
        initial_window_segments,
        max_window_segments: Some(max_window_segments),
        probe_after_timeouts: (probe_after > 0).then_some(probe_after),
        initial_ssthresh_bytes: None,
        min_rto: rto,
        initial_rto: Some(rto),
        max_rto: rto,
        delayed_ack: None,
        receive_window_bytes: None,
        dupack_threshold: u32::MAX,
        sack: true,
        rescue_retransmission: false,
        partial_ack_retransmit: false,
        prr: false,
        limited_transmit: false,
        window_growth: WindowGrowth::PerAck,
        cwnd_validation: false,
        loss_basis: LossBasis::Cwnd,
        handshake: false,
        restart_after_idle: false,
        ..TcpConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_linux_full_frames_with_timestamps_carry_three_sack_blocks() {
        let c = Stack::Linux.tcp_config();
        assert_eq!(c.mss_bytes + c.data_header_bytes(), 1500);
        assert_eq!(c.max_sack_blocks(), 3);
        assert_eq!(c.syn_header_bytes(), 60);
        assert_eq!(c.ack_header_bytes(0), 52);
        assert_eq!(c.ack_header_bytes(3), 52 + 28);
    }

    #[test]
    fn stack_d3_testbed_is_the_default_config() {
        assert_eq!(Stack::D3Testbed.tcp_config(), TcpConfig::default());
        let c = TcpConfig::default();
        assert_eq!((c.data_header_bytes(), c.ack_header_bytes(0), c.max_sack_blocks()), (40, 40, 4));
    }

    #[test]
    fn stack_names_are_distinct() {
        let mut names: Vec<_> = Stack::ALL.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Stack::ALL.len());
    }

    /// pFabric's host preset on the TCP sender: its window, its fixed timeout and its probes.
    mod pfabric_host {
        use super::*;
        use crate::cc::{CcKind, CongestionControl};
        use crate::tcp::{AckSegment, DataSegment, SackBlocks, TcpSender, MSS_BYTES};
        use crate::time::Instant;

        const MSS: u64 = MSS_BYTES as u64;

        fn at_us(us: u64) -> Instant {
            Instant::ZERO + Duration::from_us(us)
        }

        /// A sender of `size` bytes with pFabric's defaults (YAPS's: a window of 12 segments capped
        /// at 15, a 45 us timeout, probes after 5 timeouts in a row).
        fn pfabric_sender(size: u64) -> TcpSender {
            let config = pfabric_host(12, 15, Duration::from_us(45), 5);
            TcpSender::new(config, CongestionControl::new(CcKind::NewReno), Some(size), false, None, Instant::ZERO)
        }

        fn drain(s: &mut TcpSender, now: Instant) -> Vec<u64> {
            std::iter::from_fn(|| s.poll_transmit(now)).map(|seg| seg.seq / MSS).collect()
        }

        fn ack(s: &mut TcpSender, now: Instant, segments: u64, sack: &[(u64, u64)]) {
            let blocks = SackBlocks::from_slice(&sack.iter().map(|&(a, b)| (a * MSS, b * MSS)).collect::<Vec<_>>());
            s.handle_ack(now, &AckSegment { sack: blocks, ..AckSegment::plain(segments * MSS, false, Instant::ZERO) });
        }

        #[test]
        fn pfabric_host_starts_at_its_window_and_grows_to_the_cap_only() {
            let mut s = pfabric_sender(100 * MSS);
            assert_eq!(drain(&mut s, Instant::ZERO), (0..12).collect::<Vec<_>>(), "12 segments at once, no handshake");
            for n in 1..=12 {
                ack(&mut s, at_us(10), n, &[]);
            }
            assert_eq!(s.cwnd_bytes(), 15 * MSS, "one segment per ACK of new data, up to 15");
        }

        #[test]
        fn pfabric_host_never_fast_retransmits_and_times_out_at_a_fixed_interval() {
            let mut s = pfabric_sender(100 * MSS);
            drain(&mut s, Instant::ZERO);
            // Segment 0 is lost: eleven ACKs SACK everything above it, no retransmission follows.
            for n in 1..12 {
                ack(&mut s, at_us(10), 0, &[(1, n + 1)]);
            }
            assert!(drain(&mut s, at_us(10)).iter().all(|&seq| seq >= 12), "new data only, no resend of segment 0");
            assert_eq!(s.unreported_bytes(), Some(89 * MSS), "100 segments less the 11 SACKed");
            // The RTO is 45 us from the first send (duplicate ACKs do not restart it), and again
            // 45 us after the timeout: no back-off.
            let first = s.poll_timeout().expect("data in flight");
            assert_eq!(first, at_us(45));
            s.handle_timeout(first);
            assert_eq!(s.cwnd_bytes(), MSS, "a timeout leaves one segment");
            assert_eq!(drain(&mut s, first), [0], "the hole, not what was SACKed");
            assert_eq!(s.poll_timeout(), Some(first + Duration::from_us(45)));
            s.handle_timeout(first + Duration::from_us(45));
            assert_eq!(s.poll_timeout(), Some(first + Duration::from_us(90)));
        }

        /// What a pFabric flow on a persistent connection (`connections = "persistent"`) is: the
        /// connection's byte stream, whose packets pFabric ranks by `unreported_bytes`, so a
        /// message queued behind others counts their bytes too; the window stays after an idle
        /// period (docs/pfabric.md).
        #[test]
        fn pfabric_host_on_a_persistent_connection_ranks_by_every_message_queued() {
            let mut s = pfabric_sender(10 * MSS);
            drain(&mut s, Instant::ZERO);
            for n in 1..=10 {
                ack(&mut s, at_us(10), n, &[]);
            }
            assert!(s.is_complete());
            assert_eq!((s.unreported_bytes(), s.cwnd_bytes()), (Some(0), 15 * MSS));
            // A second ago idle, two messages arrive: the window is the one the first left.
            let later = at_us(1_000_000);
            s.push_message(later, 20 * MSS, None);
            s.push_message(later, 5 * MSS, None);
            assert_eq!(s.unreported_bytes(), Some(25 * MSS), "the second message's packets carry both messages' bytes");
            assert_eq!(drain(&mut s, later), (10..25).collect::<Vec<_>>(), "15 segments at once: no restart after idle");
            ack(&mut s, later, 25, &[]);
            assert_eq!(s.unreported_bytes(), Some(10 * MSS), "what is left of both messages");
        }

        #[test]
        fn pfabric_host_probes_with_one_byte_after_five_timeouts_in_a_row_until_an_ack() {
            let mut s = pfabric_sender(100 * MSS);
            drain(&mut s, Instant::ZERO);
            let len = |s: &mut TcpSender, now| std::iter::from_fn(|| s.poll_transmit(now)).map(|seg| seg.len).collect::<Vec<_>>();
            let mut now = Instant::ZERO;
            let mut sent = Vec::new();
            for _ in 0..6 {
                now = s.poll_timeout().expect("armed");
                s.handle_timeout(now);
                sent.push(len(&mut s, now));
            }
            // Four timeouts resend a segment each; the fifth and sixth, in probe mode, one byte.
            assert_eq!(sent, [vec![1460], vec![1460], vec![1460], vec![1460], vec![1], vec![1]]);
            // The probe's ACK ends probe mode: the window (one segment after the timeouts) sends
            // a full segment from the byte after the probe.
            s.handle_ack(now, &AckSegment::plain(1, false, Instant::ZERO));
            let next: Vec<DataSegment> = std::iter::from_fn(|| s.poll_transmit(now)).collect();
            assert_eq!(next.first().map(|seg| (seg.seq, seg.len)), Some((1, 1460)));
        }
    }
}
