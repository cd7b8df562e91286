//! D3 end to end, sender, receiver and one allocator together, through the two-endpoint harness
//! (`harness::Pair`): a flow at its fair share, a new flow paused by a real router, a deadline
//! the allocator cannot meet with and without quenching, lost packets of every kind; then a
//! property over random losses.

use super::harness::{Allocator, Pair, LINK};
use super::host::D3Config;
use super::router::{Router, RouterConfig};
use crate::tcp::{TcpConfig, MSS_BYTES};
use crate::time::{Duration, Instant};

const MSS: u64 = MSS_BYTES as u64;

const SIZE_100KB: u64 = 100_000;

fn config() -> D3Config {
    D3Config::new(
        TcpConfig {
            min_rto: Duration::from_ms(10),
            ..TcpConfig::default()
        },
        LINK,
    )
}

fn limit() -> Instant {
    Instant::ZERO + Duration::from_secs(10)
}

fn ms(t: u64) -> Instant {
    Instant::ZERO + Duration::from_ms(t)
}

#[test]
fn transfer_100kb_fair_share_completes_without_loss() {
    let mut p = Pair::scripted(config(), SIZE_100KB, None);
    assert!(p.run(limit()));
    assert!(!p.sender.quenched());
    assert_eq!(p.receiver.bytes_received_in_order(), SIZE_100KB);
    assert!(p.receiver.fin_received());
    let s = p.sender.stats();
    assert_eq!(
        (s.retransmitted_bytes, s.timeouts, s.request_timeouts),
        (0, 0, 0)
    );
    assert_eq!(s.segments_sent, SIZE_100KB.div_ceil(MSS));
    assert_eq!(s.bytes_acked, SIZE_100KB);
    // The SYN, one request per interval, and the FIN's interval counted among them.
    assert_eq!(s.rate_requests, s.intervals + 1);
    // 100 KB at 1 Gbps is 800 us; the handshake and the first, RTT-long burst add a few RTTs
    // of 100 us.
    let fct = p.fct();
    assert!(fct < Duration::from_us(1_500), "fct {fct}");
}

#[test]
fn transfer_100kb_real_router_pauses_new_flow_and_returns_allocation() {
    let router = Router::new(RouterConfig::for_link(LINK), Instant::ZERO);
    let mut p = Pair::new(config(), SIZE_100KB, None, Allocator::D3(Box::new(router)));
    assert!(p.run(limit()));
    assert_eq!(p.receiver.bytes_received_in_order(), SIZE_100KB);
    // Section 4.5: a new flow is given the base rate, so it pauses for its first RTT.
    assert_eq!(p.sender.stats().paused_intervals, 1);
    assert_eq!(p.sender.stats().retransmitted_bytes, 0);
    let Allocator::D3(router) = &p.allocator else {
        unreachable!()
    };
    let c = router.counters();
    assert_eq!((c.flows, c.demand, c.allocated), (0, 0, 0));
}

/// 100 KB due in 2 ms (50 MB/s) behind a router that gives at most 25 MB/s, late or not.
fn impossible_deadline(quench: bool) -> Pair {
    let allocator = Allocator::Scripted {
        capacity: 25_000_000,
        fair_share: 25_000_000,
    };
    let mut p = Pair::new(
        D3Config { quench, ..config() },
        SIZE_100KB,
        Some(ms(2)),
        allocator,
    );
    assert!(p.run(limit()));
    p
}

#[test]
fn transfer_impossible_deadline_quenched_with_quench() {
    let p = impossible_deadline(true);
    assert!(p.sender.quenched());
    assert!(p.receiver.fin_received());
    assert!(p.receiver.bytes_received_in_order() < SIZE_100KB);
    // Given up within about an RTT of the deadline, not run on for the 4 ms it would take.
    let fct = p.fct();
    assert!(fct < Duration::from_us(2_300), "fct {fct}");
}

#[test]
fn transfer_impossible_deadline_completes_late_without_quench() {
    let p = impossible_deadline(false);
    assert!(!p.sender.quenched());
    assert_eq!(p.receiver.bytes_received_in_order(), SIZE_100KB);
    // 100 KB at 25 MB/s is 4 ms.
    let fct = p.fct();
    assert!(fct > Duration::from_ms(4), "fct {fct}");
    assert!(fct < Duration::from_ms(5), "fct {fct}");
}

#[test]
fn transfer_lost_syn_and_data_recovered() {
    let mut p = Pair::scripted(config(), SIZE_100KB, None);
    // The SYN, the first interval's request (on segment 0) and a plain segment.
    p.drop_packets = vec![0, 2, 8];
    assert!(p.run(limit()));
    assert_eq!(p.receiver.bytes_received_in_order(), SIZE_100KB);
    let s = p.sender.stats();
    assert_eq!(s.request_timeouts, 2, "{s:?}");
    assert!(s.retransmitted_bytes >= 2 * MSS, "{s:?}");
}

#[test]
fn transfer_run_twice_identical() {
    let run = || {
        let mut p = Pair::scripted(config(), SIZE_100KB, None);
        p.drop_packets = vec![3, 20, 21, 40];
        assert!(p.run(limit()));
        (p.sender.stats(), p.sender.completed_at(), p.packets_sent)
    };
    assert_eq!(run(), run());
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever packets are lost (SYN, requests, data, the FIN), the flow completes and
        /// every byte arrives in order.
        #[test]
        fn transfer_random_drops_always_completes(
            drops in proptest::collection::btree_set(0u64..80, 0..12),
            tail in 0u64..MSS,
            real_router in any::<bool>(),
        ) {
            let size = 59 * MSS + tail + 1;
            let mut p = if real_router {
                let router = Router::new(RouterConfig::for_link(LINK), Instant::ZERO);
                Pair::new(config(), size, None, Allocator::D3(Box::new(router)))
            } else {
                Pair::scripted(config(), size, None)
            };
            p.drop_packets = drops.iter().copied().collect();
            prop_assert!(p.run(limit()));
            prop_assert_eq!(p.receiver.bytes_received_in_order(), size);
            prop_assert_eq!(p.sender.stats().bytes_acked, size);
            if drops.is_empty() {
                prop_assert_eq!(p.sender.stats().retransmitted_bytes, 0);
            }
            if let Allocator::D3(router) = &p.allocator {
                // Requests dropped after the router processed them, a lost SYN and the
                // re-sent requests that follow: nothing leaks into the counters.
                let c = router.counters();
                prop_assert_eq!((c.flows, c.demand, c.allocated), (0, 0, 0));
            }
        }
    }
}
