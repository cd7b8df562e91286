//! D3's congestion header as the engine carries it (D3 Section 5, Figure 6): a rate request on
//! its way out, answered by every router, or the allocations an ACK carries back; and what the
//! routers report of themselves (their counters in the summary, their samples in the queue
//! table).

use incast_proto::d3::{CongestionHeader, Feedback, D3_HEADER_BYTES};

use crate::packet::PacketKind;
use crate::results::{ExtraColumn, ExtraKind};
use crate::transport::{Way, WireHeader};

/// D3's congestion header: a rate request on its way to the receiver, or the allocations an ACK
/// carries back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum D3Header {
    /// A rate request, rewritten by every router on the way.
    Request(CongestionHeader),
    /// The routers' allocations fed back to the sender on the ACK of a request.
    Feedback(Feedback),
}

impl WireHeader for D3Header {
    fn wire_bytes(&self) -> u32 {
        D3_HEADER_BYTES
    }

    /// Routers answer requests on their way out; feedback passes untouched.
    fn way(&self, _kind: PacketKind) -> Option<Way> {
        matches!(self, D3Header::Request(_)).then_some(Way::Out)
    }
}

/// The rate a D3 sender's last request asked for.
pub(crate) const DESIRED_RATE: ExtraColumn =
    ExtraColumn { name: "d3_desired_bytes_per_s", doc: "D3: the rate its last request asked for, bytes per second", kind: ExtraKind::U64 };

/// The counters the routers keep for the summary.
pub(crate) const COUNTERS: &[&str] = &["d3_requests", "d3_priority_inversions"];

/// What a sampled port's router shows (D3 Section 4.3).
pub(crate) const SAMPLES: &[ExtraColumn] = &[
    ExtraColumn { name: "d3_flows", doc: "D3: N, the flows traversing the port", kind: ExtraKind::U64 },
    ExtraColumn { name: "d3_demand_bytes_per_s", doc: "D3: D, the sum of deadline flows' desired rates", kind: ExtraKind::U64 },
    ExtraColumn { name: "d3_allocated_bytes_per_s", doc: "D3: A, the sum of the allocated rates", kind: ExtraKind::U64 },
    ExtraColumn { name: "d3_capacity_bytes_per_s", doc: "D3: C, the capacity the controller hands out", kind: ExtraKind::U64 },
];
