//! The offer log (`[output] offer_log_ports`): each offer's outcome against the ports table of
//! the same run, the queue each offer found against the port's limit and threshold, the row
//! limit, and that logging changes nothing else.


use crate::common::*;
use incast_proto::time::Duration;
use incast_sim::results::{OfferLogSeries, RunResults};
use incast_sim::scenario::*;

const BUFFER_BYTES: u64 = 32_000;
const MARK_ABOVE_BYTES: u64 = 20_000;
/// No packet of the run is larger on the wire.
const LARGEST_PACKET: u64 = 1600;

/// Eight DCTCP workers answer host 0 twice through a 32 KB port marking above 20 KB: drops,
/// marks and retransmissions, with the offers of `ports` logged.
fn logged(ports: &[&str], max_rows: u64) -> RunResults {
    let burst = burst_into_host0(8, 40_000, 2, None);
    let mut s = scenario(star(9), Protocol::Dctcp, BUFFER_BYTES, vec![burst]);
    s.transport.tcp.min_rto = Duration::from_ms(10);
    s.switch.ecn = EcnSpec::Bytes(MARK_ABOVE_BYTES);
    if !ports.is_empty() {
        s.output.offer_log = Some(OfferLogSpec { ports: ports.iter().map(|p| p.to_string()).collect(), max_rows });
    }
    let r = incast_sim::run(&s).expect("valid");
    assert_conservation(&r);
    r
}

fn count(log: &OfferLogSeries, outcome: u8, payload: bool) -> u64 {
    log.outcome.iter().zip(&log.payload_bytes).filter(|&(&o, &p)| o == outcome && (p > 0) == payload).count() as u64
}

#[test]
fn every_offer_is_logged_and_the_outcomes_add_up_to_the_port_counters() {
    let r = logged(&["switch->h0"], OfferLogSpec::DEFAULT_MAX_ROWS);
    let log = r.offer_log.as_ref().expect("asked for");
    let port = r.ports.iter().find(|p| p.port == "switch->h0").unwrap();
    assert_eq!(log.missed, 0);
    assert!(port.drops > 0 && port.ecn_marks > 0, "the run must drop and mark to test anything");
    let dropped = count(log, OfferLogSeries::DROPPED, true) + count(log, OfferLogSeries::DROPPED, false);
    assert_eq!(dropped, port.drops);
    assert_eq!(count(log, OfferLogSeries::MARKED, true), port.ecn_marks);
    assert_eq!(count(log, OfferLogSeries::MARKED, false), port.ecn_marks_control);
    assert_eq!(log.time_s.len() as u64 - dropped, port.packets_sent, "everything queued was sent");
    assert!(log.time_s.windows(2).all(|w| w[0] <= w[1]), "rows in time order");
    assert!(log.port.iter().all(|&p| log.port_names[p as usize] == "switch->h0"));
}

#[test]
fn each_outcome_follows_from_what_the_offer_found() {
    let r = logged(&["switch->h0"], OfferLogSpec::DEFAULT_MAX_ROWS);
    let log = r.offer_log.unwrap();
    for i in 0..log.time_s.len() {
        let (found, data, ce) = (log.queued_bytes[i], log.payload_bytes[i] > 0, log.ce_on_arrival[i]);
        match log.outcome[i] {
            OfferLogSeries::DROPPED => assert!(found + LARGEST_PACKET > BUFFER_BYTES, "row {i}: dropped with {found} B waiting"),
            OfferLogSeries::MARKED => assert!(found > MARK_ABOVE_BYTES && !ce, "row {i}: marked with {found} B waiting"),
            OfferLogSeries::QUEUED => {
                assert!(found < BUFFER_BYTES, "row {i}: queued with {found} B waiting");
                // DCTCP's data is ECN-capable: queued above the threshold means it came marked.
                assert!(!data || found <= MARK_ABOVE_BYTES || ce, "row {i}: data queued unmarked with {found} B waiting");
            }
            other => panic!("row {i}: outcome {other} at a drop-tail port"),
        }
    }
    assert!(log.queued_bytes.iter().any(|&b| b > MARK_ABOVE_BYTES), "the queue must pass the threshold");
}

#[test]
fn past_its_row_limit_the_log_counts_what_it_left_out() {
    let all = logged(&["switch->*"], OfferLogSpec::DEFAULT_MAX_ROWS).offer_log.unwrap();
    let some = logged(&["switch->*"], 10).offer_log.unwrap();
    assert_eq!(some.time_s.len(), 10);
    assert_eq!(some.missed, all.time_s.len() as u64 - 10);
    assert_eq!(some.time_s[..], all.time_s[..10]);
    assert!(all.port_names.len() > 1 && all.port.iter().any(|&p| p != all.port[0]), "a pattern logs several ports");
}

#[test]
fn logging_changes_no_result() {
    let plain = logged(&[], 0);
    let with_log = logged(&["switch->*"], OfferLogSpec::DEFAULT_MAX_ROWS);
    assert!(plain.offer_log.is_none());
    assert_eq!(plain.flows, with_log.flows);
    assert_eq!(plain.ports, with_log.ports);
}
