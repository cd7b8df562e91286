//! NDP's ports as disciplines behind the engine's port accounting: a switch port's trimming queue
//! and a host NIC's priority queue with its host's PULL pacer (incast-proto's `ndp::switch` and
//! `ndp::host`, which cite htsim for each rule). The port counts what waits; when the trimming
//! queue cuts a packet to its header, the port counts it at its new size and the engine drops its
//! payload (`Joined::Trimmed`); when a header finds the header queue full with return-to-sender
//! on, the engine turns it back to its sender (`Joined::Returned`); when the pacer holds PULLs
//! back, the port wakes when the next may go (`held_until`).

use incast_proto::ndp::{HostClass, HostQueue, NdpHeader, Offered, TrimmingQueue, NDP_HEADER_BYTES};
use incast_proto::time::{BitsPerSec, Duration, Instant};

use crate::ids::{PacketId, PortId};
use crate::rng::Rng;
use crate::transport::{Arriving, Joined, QueueDiscipline};

/// The streams of the ports' coins start here, past any workload's (`Rng::new(seed, w)`, `w`
/// the workload's index), so that no port shares a workload's draws.
const COIN_STREAMS: u64 = 1 << 40;

/// An NDP port.
pub(crate) enum NdpQueue {
    /// A switch port: trims past its data queue, headers first.
    Switch {
        queue: Box<TrimmingQueue<PacketId>>,
        /// The fair coin of a full data queue (htsim's `drand() < 0.5`).
        coin: Rng,
    },
    /// A host NIC: priority classes taken in turns by flow, and the host's PULL pacer.
    Host(Box<HostQueue<PacketId>>),
}

impl NdpQueue {
    /// A switch port of `rate` whose data queue holds `limit` bytes, its coin drawn from the
    /// run's `seed` and the port's number, returning the headers it has no room for to their
    /// senders if `return_to_sender`.
    pub(crate) fn switch(limit: u64, rate: BitsPerSec, seed: u64, port: PortId, return_to_sender: bool) -> NdpQueue {
        NdpQueue::Switch {
            queue: Box::new(TrimmingQueue::new(limit, NDP_HEADER_BYTES, rate).with_return_to_sender(return_to_sender)),
            coin: Rng::new(seed, COIN_STREAMS + u64::from(port.0)),
        }
    }

    /// A host NIC whose pacer lets a PULL go every `drain`.
    pub(crate) fn host(drain: Duration) -> NdpQueue {
        NdpQueue::Host(Box::new(HostQueue::new(drain)))
    }
}

impl QueueDiscipline for NdpQueue {
    type Header = NdpHeader;

    fn offer(&mut self, now: Instant, packet: &Arriving, header: Option<&NdpHeader>, _waiting: u64) -> Joined {
        match self {
            NdpQueue::Switch { queue, coin } => {
                match queue.offer(now, packet.id, packet.wire_bytes, packet.payload, packet.returned, || coin.unit() < 0.5) {
                    Offered::Queued => Joined::Queued,
                    Offered::Trimmed { packet, bytes } => Joined::Trimmed { packet, cut: bytes - NDP_HEADER_BYTES },
                    Offered::Dropped { packet, bytes } => Joined::Displaced { victim: packet, bytes },
                    Offered::Returned { packet, bytes } => Joined::Returned { packet, bytes, cut: bytes - NDP_HEADER_BYTES },
                }
            }
            NdpQueue::Host(queue) => {
                let flow = packet.flow.0;
                let class = header.map_or(HostClass::High, |h| HostClass::of(h, packet.payload));
                queue.offer(now, flow, packet.id, class);
                if let Some(NdpHeader::Ack { done: true, .. }) = header {
                    queue.release_flow(now, flow);
                }
                Joined::Queued
            }
        }
    }

    fn next(&mut self, now: Instant) -> Option<PacketId> {
        match self {
            NdpQueue::Switch { queue, .. } => queue.next(now),
            NdpQueue::Host(queue) => queue.next(now),
        }
    }

    /// A switch port's trimming queue takes an idle arrival into service as `offer` and `next`
    /// would; a host NIC's paces its PULLs and takes turns by flow, so it is always offered.
    fn take_when_idle(&mut self, now: Instant, wire_bytes: u32, payload: bool) -> bool {
        match self {
            NdpQueue::Switch { queue, .. } => queue.take_idle(now, wire_bytes, payload),
            NdpQueue::Host(_) => false,
        }
    }

    fn held_until(&self) -> Option<Instant> {
        match self {
            NdpQueue::Switch { .. } => None,
            NdpQueue::Host(queue) => queue.held_until(),
        }
    }

    fn len(&self) -> usize {
        match self {
            NdpQueue::Switch { queue, .. } => queue.len(),
            NdpQueue::Host(queue) => queue.len(),
        }
    }
}
