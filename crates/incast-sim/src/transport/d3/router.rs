//! D3's router at a switch egress port (D3 Sections 4.3 and 4.4): hands the rate request a
//! packet carries to the port's allocator (`incast_proto::d3::Router`), which writes this hop's
//! allocation into the header and says what it granted, and takes the allocation back if the
//! port then drops the packet. The allocator's capacity control runs on the port's timer with
//! the bytes the port sent and its queue. What it granted deadline flows feeds the port's count
//! of priority inversions (`inversions`).

use incast_proto::d3::{Grant, RateField, Router, RouterConfig};
use incast_proto::time::Instant;

use super::inversions::PriorityInversions;
use super::header::{D3Header, COUNTERS, SAMPLES};
use crate::ids::FlowId;
use crate::scenario::D3Spec;
use crate::transport::{Passage, PortProcessor, PortView};

/// The allocator of one port, what it last saw of the port's byte counter, and the priority
/// inversions of its grants.
pub(crate) struct D3Port {
    router: Router,
    bytes_seen: u64,
    inversions: PriorityInversions,
}

impl D3Port {
    /// An allocator for a port of `view.rate` configured by `spec`, carrying rates as `field`.
    pub(crate) fn new(spec: &D3Spec, view: &PortView, field: RateField) -> D3Port {
        let paper = RouterConfig::for_link(view.rate);
        // Multiples of the link, validated finite, non-negative and at most 1000; `as` rounds
        // toward zero into the integer range.
        let of_link = |multiple: f64| (paper.link_rate as f64 * multiple) as u64;
        let config = RouterConfig {
            base_rate: spec.base_rate_bytes_per_sec,
            control_interval: spec.control_interval,
            alpha: spec.alpha,
            beta: spec.beta,
            new_flow_pause: spec.new_flow_pause,
            field,
            controller: spec.controller,
            capacity_min: of_link(spec.capacity_min),
            capacity_max: of_link(spec.capacity_max),
            time_slices: spec.time_slices,
            carry_remainder: spec.carry_remainder,
            reclaim_dropped: spec.reclaim_dropped,
            ..paper
        };
        D3Port { router: Router::new(config, Instant::ZERO), bytes_seen: view.bytes_sent, inversions: PriorityInversions::default() }
    }
}

/// The hash a switch would compute from a flow's 5-tuple (for ECMP), here from its id: the
/// SplitMix64 finalizer, so that consecutive ids spread over the low bits that pick a flow's turn
/// when a port time-slices.
fn flow_hash(flow: FlowId) -> u32 {
    let mut z = u64::from(flow.0).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

impl PortProcessor for D3Port {
    type Header = D3Header;

    /// Answers a rate request (only requests are shown it: `D3Header::way`), and counts the
    /// answer towards the port's priority inversions when the flow has a deadline.
    #[inline]
    fn on_out(&mut self, passage: &Passage<'_>, header: &mut D3Header) -> bool {
        let D3Header::Request(request) = header else { return false };
        let grant = self.router.handle_header(request, flow_hash(passage.flow));
        if grant != Grant::Untouched {
            if let Some(deadline) = passage.deadline() {
                self.inversions.on_grant(passage.flow, deadline, grant);
            }
        }
        grant.took_part()
    }

    fn on_dropped(&mut self, _now: Instant, header: &D3Header) {
        if let D3Header::Request(request) = header {
            self.router.handle_drop(request);
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.router.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant, port: &PortView) {
        self.router.on_bytes_sent(port.bytes_sent - self.bytes_seen);
        self.bytes_seen = port.bytes_sent;
        self.router.handle_timeout(now, port.queue_bytes);
    }

    fn count(&self, sums: &mut [u64]) {
        debug_assert_eq!(sums.len(), COUNTERS.len());
        sums[0] += self.inversions.requests;
        sums[1] += self.inversions.inversions;
    }

    fn sample(&self, out: &mut [Option<u64>]) -> bool {
        debug_assert_eq!(out.len(), SAMPLES.len());
        let c = self.router.counters();
        out.copy_from_slice(&[Some(c.flows), Some(c.demand), Some(c.allocated), Some(c.capacity)]);
        true
    }
}
