//! In-network processing at an egress port: the port's explicit-rate allocator, through which
//! the rate requests of D3 and RCPdc packets are answered on their way out (D3 Section 4.3: the
//! routers on a flow's path allocate its rate), and PDQ's scheduler (PDQ Section 3.3), which
//! answers data packets and probes on their way out and reads the answer back from their ACKs.
//! The engine shows the allocator every packet that carries a request, before the buffer decides
//! to admit or drop it, as a router's forwarding path would; packets without one never reach it.
//! The protocol crate owns the request's format and what answering it means: the allocator
//! answers with a [`Grant`], which the engine acts on and measures (priority inversions) without
//! reading the header.

use incast_proto::d3::{CongestionHeader, Counters, Grant};
use incast_proto::pdq::SchedulingHeader;
use incast_proto::time::{BitsPerSec, Instant};

use crate::ids::FlowId;

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

/// A header a port's allocator answers.
#[derive(Debug)]
pub enum Request<'a> {
    /// D3's congestion header on a rate request, leaving through the port.
    D3(&'a mut CongestionHeader),
    /// PDQ's header on a data packet or probe, leaving through the port.
    PdqData(&'a mut SchedulingHeader),
    /// PDQ's header on the ACK of one of the flow's packets, passing the switch (or reaching the
    /// host) that sends the flow's data through this port: Algorithm 3 runs at the port whose list
    /// holds the flow, though the ACK leaves by another.
    PdqAck(&'a mut SchedulingHeader),
}

/// The explicit-rate allocator of one egress port. One boxed value per port, so the call is a
/// single indirect call per rate request at ports that have one and nothing at ports that do not.
pub trait RateAllocator: Send {
    /// A packet of `flow` carrying `request` arrived at the port: the allocator answers it,
    /// writing its allocation into the header, and returns what it granted. If the answer is one
    /// the allocator took part in ([`Grant::took_part`]) and the port then drops the packet, the
    /// allocator hears of it through [`on_dropped`](Self::on_dropped).
    fn on_request(&mut self, now: Instant, flow: FlowId, request: Request<'_>, port: &PortView) -> Grant;

    /// The port dropped a packet whose request this allocator answered (its buffer was full):
    /// undo what only a delivered request should have done. `request` is the header as
    /// `on_request` left it.
    fn on_dropped(&mut self, now: Instant, request: &CongestionHeader) {
        let _ = (now, request);
    }

    /// When the allocator next wants `handle_timeout` (periodic work such as capacity estimation).
    #[must_use]
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }

    /// Called at or after `poll_timeout()`; a no-op when nothing is due.
    fn handle_timeout(&mut self, now: Instant, port: &PortView) {
        let _ = (now, port);
    }

    /// The aggregate counters of the allocator (D3's N, D, A and C), for time series, if it
    /// keeps them.
    fn counters(&self) -> Option<Counters> {
        None
    }
}
