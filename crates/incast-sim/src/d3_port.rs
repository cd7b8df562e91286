//! D3's router at a switch egress port (D3 Sections 4.3 and 4.4): reads the rate request a packet
//! carries, lets the port's allocator (`incast_proto::d3::Router`) compute this hop's allocation,
//! and writes it into the header's slot for this hop. Packets without a rate request pass
//! untouched. The allocator's capacity control runs on the port's timer with the bytes the port
//! sent and its queue.

use incast_proto::d3::{CongestionHeader, Counters, RateRequest, Router, RouterConfig, MAX_HOPS};
use incast_proto::time::Instant;

use crate::packet::Packet;
use crate::processor::{PortProcessor, PortView};
use crate::scenario::D3Spec;

/// The allocator of one port and what it last saw of the port's byte counter.
pub(crate) struct D3Port {
    router: Router,
    bytes_seen: u64,
}

impl D3Port {
    /// An allocator for a port of `view.rate` configured by `spec`; `wire_scale` rounds
    /// allocations to the 8-bit header field.
    pub(crate) fn new(spec: &D3Spec, view: &PortView, wire_scale: Option<u8>) -> D3Port {
        let config = RouterConfig {
            base_rate: spec.base_rate_bytes_per_sec,
            control_interval: spec.control_interval,
            alpha: spec.alpha,
            beta: spec.beta,
            new_flow_pause: spec.new_flow_pause,
            wire_scale,
            ..RouterConfig::for_link(view.rate)
        };
        D3Port { router: Router::new(config, Instant::ZERO), bytes_seen: view.bytes_sent }
    }
}

impl PortProcessor for D3Port {
    fn on_packet(&mut self, _now: Instant, _packet: &mut Packet, request: Option<&mut CongestionHeader>, _port: &PortView) {
        let Some(header) = request else { return };
        let hop = usize::from(header.index);
        if hop >= MAX_HOPS {
            return; // a path longer than the header's vectors: later routers cannot take part
        }
        let req = RateRequest {
            syn: header.syn,
            fin: header.fin,
            desired: header.desired,
            prev_desired: header.prev_desired,
            prev_alloc: header.prev_alloc[hop],
            upstream_min: header.alloc[..hop].iter().copied().min(),
        };
        let alloc = self.router.handle_request(&req);
        header.record_alloc(alloc);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.router.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Instant, port: &PortView) {
        self.router.on_bytes_sent(port.bytes_sent - self.bytes_seen);
        self.bytes_seen = port.bytes_sent;
        self.router.handle_timeout(now, port.queue_bytes);
    }

    fn counters(&self) -> Option<Counters> {
        Some(self.router.counters())
    }
}
