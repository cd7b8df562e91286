//! In-network processing at a switch egress port: a small trait through which a component reads and
//! rewrites packet headers as they pass (D3's rate allocator plugs in here). The engine calls it
//! for every packet that reaches the port, before the buffer decides to admit or drop it, as a
//! router's forwarding path would.

use incast_proto::d3::header::CongestionHeader;
use incast_proto::d3::Counters;
use incast_proto::time::{BitsPerSec, Instant};

use crate::packet::Packet;

/// What a processor may observe of the port it sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortView {
    /// Line rate of the port's link.
    pub rate: BitsPerSec,
    /// Bytes queued (including the packet being serialized).
    pub queue_bytes: u64,
    /// Bytes this port has finished transmitting since the start.
    pub bytes_sent: u64,
}

/// A header processor at one egress port. One boxed value per port, so the call is a single
/// indirect call per packet-hop at ports that have one and nothing at ports that do not.
pub trait PortProcessor: Send {
    /// A packet arrived at the port; the processor may rewrite its headers. `request` is the
    /// congestion header of an explicit-rate transport (D3), present when the packet carries a
    /// rate request. Returns whether the processor acted on the packet, and so must hear of it
    /// through [`on_dropped`](Self::on_dropped) if the port then drops it.
    fn on_packet(&mut self, now: Instant, packet: &mut Packet, request: Option<&mut CongestionHeader>, port: &PortView) -> bool;

    /// The port dropped a packet this processor acted on (its buffer was full): undo what only a
    /// delivered packet should have done. `request` is the header as `on_packet` left it.
    fn on_dropped(&mut self, now: Instant, packet: &Packet, request: Option<&CongestionHeader>) {
        let _ = (now, packet, request);
    }

    /// When the processor next wants `handle_timeout` (periodic work such as capacity estimation).
    #[must_use]
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    /// Called at or after `poll_timeout()`; a no-op when nothing is due.
    fn handle_timeout(&mut self, now: Instant, port: &PortView) {
        let _ = (now, port);
    }

    /// The aggregate counters of a rate allocator (D3's N, D, A and C), for time series.
    fn counters(&self) -> Option<Counters> {
        None
    }
}
