//! Transfers end to end through the harness (`harness::Pair`): a flow with no loss, with a lost
//! SYN, with one or several lost segments in a window, with a lost tail, under DCTCP's marking;
//! then a property over random losses.

use crate::cc::CcKind;
use crate::tcp::harness::{limit, Pair};
use crate::tcp::{DelayedAck, TcpConfig, MSS_BYTES};
use crate::time::{Duration, Instant};

const MSS: u64 = MSS_BYTES as u64;

const ONE_MB: u64 = 1_000_000;
/// 684 full segments and one of 1360 bytes.
const SEGMENTS_1MB: u64 = ONE_MB.div_ceil(MSS);

fn delayed() -> TcpConfig {
    TcpConfig {
        delayed_ack: Some(DelayedAck {
            segments: 2,
            timeout: Duration::from_ms(1), quickack: 0
        }),
        ..TcpConfig::default()
    }
}

fn assert_delivered(p: &Pair, size: u64) {
    assert!(p.sender.is_complete());
    assert_eq!(p.sender.stats().bytes_acked, size);
    assert_eq!(p.receiver.bytes_received_in_order(), size);
}

#[test]
fn transfer_1mb_no_loss_completes_without_retransmission() {
    for config in [TcpConfig::default(), delayed()] {
        let mut p = Pair::new(config, CcKind::NewReno, ONE_MB);
        assert!(p.run(limit()));
        assert_delivered(&p, ONE_MB);
        let s = p.sender.stats();
        assert_eq!(
            (s.retransmitted_bytes, s.timeouts, s.fast_retransmits),
            (0, 0, 0)
        );
        assert_eq!(s.segments_sent, SEGMENTS_1MB);
        // One RTT of 20 us plus 1 MB at 1 Gbps is about 8.2 ms; slow start adds a few RTTs.
        let fct = p
            .sender
            .completed_at()
            .unwrap()
            .saturating_since(Instant::ZERO);
        assert!(fct < Duration::from_ms(10), "fct {fct}");
        let srtt = p.sender.srtt().unwrap();
        assert!(srtt >= Duration::from_us(20), "srtt {srtt}");
    }
}

#[test]
fn transfer_100kb_handshake_one_rtt_later_without_retransmission() {
    const SIZE: u64 = 100_000;
    for config in [TcpConfig::default(), delayed()] {
        let mut plain = Pair::new(config, CcKind::NewReno, SIZE);
        assert!(plain.run(limit()));
        let mut hs = Pair::new(
            TcpConfig {
                handshake: true,
                ..config
            },
            CcKind::NewReno,
            SIZE,
        );
        assert!(hs.run(limit()));
        assert_delivered(&hs, SIZE);
        let s = hs.sender.stats();
        assert_eq!(
            (
                s.retransmitted_bytes,
                s.timeouts,
                s.fast_retransmits,
                s.syns_sent
            ),
            (0, 0, 0, 1)
        );
        assert_eq!(s.segments_sent, plain.sender.stats().segments_sent);
        // The SYN's round trip: its 48 B on the 1 Gbps data direction, then both delays.
        let rtt = hs.rate.tx_time(u64::from(config.syn_header_bytes())) + hs.delay + hs.delay;
        let fct = |p: &Pair| p.sender.completed_at().unwrap();
        assert_eq!(fct(&hs), fct(&plain) + rtt);
    }
}

#[test]
fn transfer_lost_syn_costs_one_initial_rto() {
    let config = TcpConfig {
        handshake: true,
        ..TcpConfig::default()
    };
    let mut plain = Pair::new(config, CcKind::NewReno, ONE_MB);
    assert!(plain.run(limit()));
    let mut p = Pair::new(config, CcKind::NewReno, ONE_MB);
    p.drop_first_syn = true;
    assert!(p.run(limit()));
    assert_delivered(&p, ONE_MB);
    let s = p.sender.stats();
    assert_eq!((s.timeouts, s.syns_sent, s.retransmitted_bytes), (1, 2, 0));
    let fct = |p: &Pair| p.sender.completed_at().unwrap();
    assert_eq!(fct(&p), fct(&plain) + config.min_rto);
}

#[test]
fn transfer_one_drop_repaired_by_fast_retransmit_without_timeout() {
    for config in [TcpConfig::default(), delayed()] {
        let mut p = Pair::new(config, CcKind::NewReno, ONE_MB);
        p.drop_first_tx = vec![100 * MSS];
        assert!(p.run(limit()));
        assert_delivered(&p, ONE_MB);
        let s = p.sender.stats();
        assert_eq!((s.timeouts, s.fast_retransmits), (0, 1));
        assert_eq!(s.retransmitted_bytes, MSS);
        assert_eq!(s.segments_sent, SEGMENTS_1MB + 1);
    }
}

#[test]
fn transfer_two_drops_in_one_window_single_newreno_recovery() {
    let mut p = Pair::new(TcpConfig::default(), CcKind::NewReno, ONE_MB);
    p.drop_first_tx = vec![300 * MSS, 305 * MSS];
    assert!(p.run(limit()));
    assert_delivered(&p, ONE_MB);
    let s = p.sender.stats();
    assert_eq!((s.timeouts, s.fast_retransmits), (0, 1));
    assert_eq!(s.retransmitted_bytes, 2 * MSS);
}

#[test]
fn transfer_tail_of_window_dropped_exactly_one_timeout() {
    let mut p = Pair::new(TcpConfig::default(), CcKind::NewReno, ONE_MB);
    let last = SEGMENTS_1MB - 1;
    p.drop_first_tx = vec![(last - 2) * MSS, (last - 1) * MSS, last * MSS];
    assert!(p.run(limit()));
    assert_delivered(&p, ONE_MB);
    let s = p.sender.stats();
    assert_eq!((s.timeouts, s.fast_retransmits), (1, 0));
    assert_eq!(s.retransmitted_bytes, p.dropped_bytes);
    assert_eq!(s.retransmitted_bytes, 2 * MSS + (ONE_MB - last * MSS));
    // The flow waited one (unbacked-off) minimum RTO for the tail.
    let fct = p
        .sender
        .completed_at()
        .unwrap()
        .saturating_since(Instant::ZERO);
    assert!(fct > TcpConfig::default().min_rto, "fct {fct}");
}

#[test]
fn transfer_go_back_n_counts_resent_bytes_already_received() {
    // The first two segments of the initial window are lost: too few packets for three
    // duplicates, so the timeout resends from byte 0.
    let mut p = Pair::new(
        TcpConfig {
            initial_window_segments: 4,
            ..TcpConfig::default()
        },
        CcKind::NewReno,
        20 * MSS,
    );
    p.drop_first_tx = vec![0, MSS];
    assert!(p.run(limit()));
    assert_delivered(&p, 20 * MSS);
    let s = p.sender.stats();
    assert_eq!((s.timeouts, s.fast_retransmits), (1, 0));
    // Go-back-N resends 0, then 1 and 2 in the next window of two: 2 had arrived already,
    // which a sender without SACK cannot know. The ACK for 1 then jumps over 2 and 3.
    assert_eq!(s.retransmitted_bytes, 3 * MSS);
}

#[test]
fn transfer_dctcp_marking_keeps_queue_near_threshold() {
    const K: u64 = 20;
    let mut reno = Pair::new(TcpConfig::default(), CcKind::NewReno, 4 * ONE_MB);
    reno.mark_threshold = Some(K);
    reno.steady_from = ONE_MB;
    assert!(reno.run(limit()));
    let mut dctcp = Pair::new(delayed(), CcKind::dctcp(), 4 * ONE_MB);
    dctcp.mark_threshold = Some(K);
    dctcp.steady_from = ONE_MB;
    assert!(dctcp.run(limit()));
    assert_delivered(&dctcp, 4 * ONE_MB);
    assert!(dctcp.delivered_ce > 0);
    let alpha = dctcp.sender.congestion_control().dctcp_alpha().unwrap();
    assert!(alpha < 0.5, "alpha {alpha}");
    // Without ECN the unbounded queue holds the whole slow-start overshoot.
    assert!(
        reno.max_queue_frames > 4 * K,
        "reno queue {}",
        reno.max_queue_frames
    );
    assert!(
        dctcp.max_queue_frames < 2 * K,
        "dctcp queue {}",
        dctcp.max_queue_frames
    );
    assert_eq!(dctcp.sender.stats().retransmitted_bytes, 0);
}

#[test]
fn transfer_run_twice_identical() {
    let run = || {
        let mut p = Pair::new(delayed(), CcKind::dctcp(), ONE_MB);
        p.mark_threshold = Some(10);
        p.drop_first_tx = vec![50 * MSS, 400 * MSS, 401 * MSS];
        assert!(p.run(limit()));
        (
            p.sender.stats(),
            p.sender.completed_at(),
            p.sender.cwnd_bytes(),
            p.delivered_ce,
        )
    };
    assert_eq!(run(), run());
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever first transmissions are lost, the flow completes, every byte arrives once in
        /// order, and exactly the resent bytes are counted as retransmitted (at least the lost
        /// ones).
        #[test]
        fn transfer_random_drops_always_completes(
            drops in proptest::collection::btree_set(0u64..60, 0..12),
            delayed_ack in any::<bool>(),
            dctcp in any::<bool>(),
            tail in 0u64..MSS,
        ) {
            let size = 59 * MSS + tail + 1;
            let config = if delayed_ack { delayed() } else { TcpConfig::default() };
            let kind = if dctcp { CcKind::dctcp() } else { CcKind::NewReno };
            let mut p = Pair::new(config, kind, size);
            p.mark_threshold = Some(5);
            p.drop_first_tx = drops.iter().map(|&n| n * MSS).collect();
            prop_assert!(p.run(limit()));
            assert_delivered(&p, size);
            let s = p.sender.stats();
            prop_assert!(s.retransmitted_bytes >= p.dropped_bytes);
            let first_tx = size.div_ceil(MSS);
            prop_assert!(s.segments_sent >= first_tx);
            prop_assert!(s.retransmitted_bytes <= (s.segments_sent - first_tx) * MSS);
            if drops.is_empty() {
                prop_assert_eq!(s.retransmitted_bytes, 0);
            }
        }
    }
}

