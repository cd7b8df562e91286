//! The offer log (`[output] offer_log_ports`): every packet offered to a logged port, with what
//! it found there (the packets and bytes waiting) and what the port did with it (queued, queued
//! and marked CE, dropped, queued by evicting another, or queued with a packet trimmed). Where the ports table gives a port's
//! totals, this gives each decision, so that two simulators' ports can be set side by side packet
//! by packet (docs/crosscheck/marks-gap.md is what it was made for).
//!
//! A port that is not logged costs the event loop one test of a flag it keeps beside its queue
//! (`Port::offers_logged`) per offer; the log itself is written off the hot path, after the
//! port has answered, from what the answer changed.

use incast_proto::time::Instant;

use crate::error::{reserve, try_extend, try_permute, ResourceError};
use crate::ids::{FlowId, PortId};
use crate::port::Admission;
use crate::results::OfferLogSeries;
use crate::row_limit::RowLimit;

/// What a logged port found when a packet was offered to it.
pub(crate) struct Offer {
    pub(crate) port: PortId,
    pub(crate) flow: FlowId,
    pub(crate) seq: u64,
    pub(crate) payload_bytes: u32,
    pub(crate) queued_packets: u64,
    pub(crate) queued_bytes: u64,
    pub(crate) ce_on_arrival: bool,
}

/// The log being written. In a run cut into parts (`crate::rounds`) each engine logs the offers
/// to the ports of its parts, and the rows are joined and ordered after the run, their limit
/// kept as one engine would keep it (`crate::row_limit`).
pub(crate) struct OfferLog {
    /// Whether each port (by index) is logged; copied into each `Port::offers_logged`.
    pub(crate) ports: Vec<bool>,
    limit: RowLimit,
    series: OfferLogSeries,
    /// Each row's instant, in a run cut into parts (which orders the rows by it: `time_s`
    /// rounds).
    at: Vec<Instant>,
}

impl OfferLog {
    pub(crate) fn new(ports: Vec<bool>, max_rows: u64) -> OfferLog {
        OfferLog { ports, limit: RowLimit::new(max_rows), series: OfferLogSeries::default(), at: Vec::new() }
    }

    /// The log of a run cut into parts.
    pub(crate) fn cut_into_parts(&mut self) {
        self.limit.cut_into_parts();
    }

    /// Logs one offer and the port's answer; past the limit (`RowLimit::keeps`), counts it as
    /// missed.
    pub(crate) fn record(&mut self, now: Instant, offer: &Offer, admission: Admission) {
        let s = &mut self.series;
        if !self.limit.keeps(s.time_s.len() as u64, now) {
            s.missed += 1;
            return;
        }
        if self.limit.in_parts() {
            self.at.push(now);
        }
        s.time_s.push(now.as_secs_f64());
        s.port.push(offer.port.0);
        s.flow_id.push(offer.flow.0);
        s.seq.push(offer.seq);
        s.payload_bytes.push(offer.payload_bytes);
        s.queued_packets.push(offer.queued_packets);
        s.queued_bytes.push(offer.queued_bytes);
        s.ce_on_arrival.push(offer.ce_on_arrival);
        s.outcome.push(match admission {
            Admission::Queued { marked: false } => OfferLogSeries::QUEUED,
            Admission::Queued { marked: true } => OfferLogSeries::MARKED,
            Admission::Dropped => OfferLogSeries::DROPPED,
            Admission::QueuedEvicting { .. } => OfferLogSeries::EVICTING,
            Admission::Trimmed { .. } => OfferLogSeries::TRIMMING,
            Admission::Returned { arrival: true, .. } => OfferLogSeries::RETURNED,
            Admission::Returned { arrival: false, .. } => OfferLogSeries::RETURNING,
        });
    }

    /// Joins the rows of `other`, another engine's log of the same run (`crate::sim::crew`).
    pub(crate) fn absorb(&mut self, other: OfferLog) -> Result<(), ResourceError> {
        let (s, theirs) = (&mut self.series, other.series);
        s.missed += theirs.missed;
        join(&mut self.at, other.at)?;
        join(&mut s.time_s, theirs.time_s)?;
        join(&mut s.port, theirs.port)?;
        join(&mut s.flow_id, theirs.flow_id)?;
        join(&mut s.seq, theirs.seq)?;
        join(&mut s.payload_bytes, theirs.payload_bytes)?;
        join(&mut s.queued_packets, theirs.queued_packets)?;
        join(&mut s.queued_bytes, theirs.queued_bytes)?;
        join(&mut s.ce_on_arrival, theirs.ce_on_arrival)?;
        join(&mut s.outcome, theirs.outcome)
    }

    /// A run cut into parts, after `absorb`: orders the rows by time, then port, and keeps the
    /// first of them, counting the others missed (`RowLimit::order_and_cut`).
    pub(crate) fn order_and_cut(&mut self) -> Result<(), ResourceError> {
        let s = &mut self.series;
        let mut order: Vec<usize> = Vec::new();
        reserve(&mut order, self.at.len(), "the offer log's rows")?;
        order.extend(0..self.at.len());
        s.missed += self.limit.order_and_cut(&mut order, |&i| (self.at[i], s.port[i]));
        permute(&mut self.at, &order)?;
        permute(&mut s.time_s, &order)?;
        permute(&mut s.port, &order)?;
        permute(&mut s.flow_id, &order)?;
        permute(&mut s.seq, &order)?;
        permute(&mut s.payload_bytes, &order)?;
        permute(&mut s.queued_packets, &order)?;
        permute(&mut s.queued_bytes, &order)?;
        permute(&mut s.ce_on_arrival, &order)?;
        permute(&mut s.outcome, &order)
    }

    /// The rows, with the ports' names.
    pub(crate) fn finish(mut self, port_names: Vec<String>) -> OfferLogSeries {
        self.series.port_names = port_names;
        self.series
    }
}

/// Appends `theirs` to `ours`; fails if memory runs out.
fn join<T>(ours: &mut Vec<T>, theirs: Vec<T>) -> Result<(), ResourceError> {
    try_extend(ours, theirs, "the offer log's rows")
}

/// `values` in `order`; fails if memory runs out.
fn permute<T: Copy>(values: &mut Vec<T>, order: &[usize]) -> Result<(), ResourceError> {
    try_permute(values, order, "the offer log's rows")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(port: u32) -> Offer {
        Offer { port: PortId(port), flow: FlowId(0), seq: 0, payload_bytes: 1, queued_packets: 0, queued_bytes: 0, ce_on_arrival: false }
    }

    fn log(rows: &[(u64, u32)], max_rows: u64) -> OfferLog {
        let mut log = OfferLog::new(vec![true; 10], max_rows);
        log.cut_into_parts();
        for &(ns, port) in rows {
            log.record(Instant::from_ps(ns * 1000), &offer(port), Admission::Queued { marked: false });
        }
        log
    }

    /// Offers at one instant logged out of port order, the limit falling among them: the rows
    /// kept are the first in (time, port) order, as if every engine's rows had been kept.
    #[test]
    fn an_engine_keeps_the_instant_of_its_limit_and_the_join_keeps_the_first_rows_by_time_and_port() {
        let mut a = log(&[(1, 6), (2, 7), (2, 3), (3, 1)], 2);
        let b = log(&[(2, 4), (2, 5)], 2);
        a.absorb(b).expect("memory");
        a.order_and_cut().expect("memory");
        let s = &a.series;
        assert_eq!(s.port, [6, 3]);
        assert_eq!(s.time_s, [1e-9, 2e-9]);
        assert_eq!(s.missed, 4, "(3, 1) at once, (2, 4), (2, 5), (2, 7) when cut");
        // One engine alone, the same.
        let mut one = log(&[(1, 6), (2, 7), (2, 3), (2, 4), (2, 5), (3, 1)], 2);
        one.order_and_cut().expect("memory");
        assert_eq!((one.series.port.as_slice(), one.series.missed), ([6, 3].as_slice(), 4));
    }
}
