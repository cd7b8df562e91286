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

use crate::ids::{FlowId, PortId};
use crate::port::Admission;
use crate::results::OfferLogSeries;

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

/// The log being written.
pub(crate) struct OfferLog {
    /// Whether each port (by index) is logged; copied into each `Port::offers_logged`.
    pub(crate) ports: Vec<bool>,
    max_rows: u64,
    series: OfferLogSeries,
}

impl OfferLog {
    pub(crate) fn new(ports: Vec<bool>, max_rows: u64) -> OfferLog {
        OfferLog { ports, max_rows, series: OfferLogSeries::default() }
    }

    /// Logs one offer and the port's answer; past `max_rows`, counts it as missed.
    pub(crate) fn record(&mut self, now: Instant, offer: &Offer, admission: Admission) {
        let s = &mut self.series;
        if s.time_s.len() as u64 >= self.max_rows {
            s.missed += 1;
            return;
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

    /// The rows, with the ports' names.
    pub(crate) fn finish(mut self, port_names: Vec<String>) -> OfferLogSeries {
        self.series.port_names = port_names;
        self.series
    }
}
