//! A scripted two-endpoint harness for any registered transport (quinn's `tests/util.rs` pair,
//! smoltcp's scripted sockets): one flow's sender and receiver as the transport's plug-in builds
//! them, joined by an ideal path of fixed one-way delay through two ports (the sender's NIC and a
//! switch port), whose processors (D3's routers, PDQ's schedulers) the plug-in sets up and see
//! every header as the engine shows it: on the way out at each port, on the way back at each
//! node. The link neither queues nor serializes; a script drops chosen packets. The tests
//! (`transport::tests`) run it for every protocol of the registry, so a transport added to it is
//! scripted with no line of its own.

use std::collections::VecDeque;

use incast_proto::time::{BitsPerSec, Duration, Instant};

use super::{FlowStart, Header, Passage, Processor, Receiver, Sender, Way};
use crate::flow::Flow;
use crate::flow_table::FlowTable;
use crate::ids::{FlowId, PortId};
use crate::packet::{Packet, PacketKind, RouteCursor};
use crate::scenario::{parse_toml, LinkSpec, Protocol};
use crate::transport::{NetFacts, PortFacts, PortView, Setups};
use crate::workload::FlowPlan;

/// The flow's number.
const FLOW: FlowId = FlowId(0);
/// One-way delay of the path.
const DELAY: Duration = Duration::from_us(10);
/// Rate of every link.
const RATE: BitsPerSec = BitsPerSec(10_000_000_000);

/// A packet on its way, with its header.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    arrives: Instant,
    packet: Packet,
    header: Option<Header>,
}

/// One flow of `protocol` between two hosts, and the packets between them.
pub(crate) struct Pair {
    setups: Setups,
    sender: Sender,
    receiver: Receiver,
    /// The ports on the way, sender's NIC first, with the processors the plug-in put there.
    ports: [(PortView, Option<Processor>); 2],
    flows: FlowTable,
    now: Instant,
    wire: VecDeque<InFlight>,
    /// Data packets sent so far, counting from 0, whose number the script drops.
    drop_data: Vec<u64>,
    data_sent: u64,
    /// What crossed the path, in order: (kind, seq, payload, bytes on the wire).
    pub(crate) log: Vec<(PacketKind, u64, u32, u32)>,
}

impl Pair {
    /// A flow of `size` bytes under `protocol` with its defaults, starting at 0.
    pub(crate) fn new(protocol: Protocol, size: u64) -> Pair {
        let text = format!(
            "[topology]\nkind = \"star\"\nhosts = 2\nlink_rate = \"10Gbps\"\n[switch]\npriority_classes = 8\n\
             [transport]\nprotocol = \"{}\"\nmin_rto = \"1ms\"\n[[workload]]\nkind = \"flow-burst\"\nsenders = 1\n",
            protocol.name()
        );
        let scenario = parse_toml(&text, None).expect("a valid scenario");
        // The path is two ports; its one-way delay counts once.
        let link = LinkSpec { rate: RATE, delay: Duration::from_ps(DELAY.as_ps() / 2) };
        let setups = Setups::new(&scenario, &NetFacts { fastest_host_link: RATE, longest_path: vec![link, link] });
        let view = PortView { rate: RATE, queue_bytes: 0, bytes_sent: 0 };
        let port = |id: u32, host: bool| {
            let facts = PortFacts { id: PortId(id), host, like_switch: false, view };
            (view, setups.processor(&[protocol], &facts))
        };
        let plan = FlowPlan {
            src: 1,
            dst: 0,
            size_bytes: Some(size),
            start: Instant::ZERO,
            deadline: None,
            protocol: Some(protocol),
            priority: 0,
            workload: 0,
            round: 0,
            app: None,
            background: false,
            persistent: false,
        };
        let start = FlowStart { flow: FLOW, nic: PortId(0), protocol, plan: &plan, deadline: None, now: Instant::ZERO, uplink: RATE };
        let (sender, receiver) = setups.endpoints(&start);
        let mut flows = FlowTable::default();
        flows.insert(FLOW, Flow::placeholder()).expect("memory for one flow");
        let ports = [port(0, true), port(1, false)];
        Pair {
            setups,
            sender,
            receiver,
            ports,
            flows,
            now: Instant::ZERO,
            wire: VecDeque::new(),
            drop_data: Vec::new(),
            data_sent: 0,
            log: Vec::new(),
        }
    }

    /// Drops the data packets (SYNs and probes included) numbered `numbers`, counting from 0.
    pub(crate) fn dropping(mut self, numbers: &[u64]) -> Pair {
        self.drop_data = numbers.to_vec();
        self
    }

    /// Runs until the sender is done and nothing is on the way, or `limit` of simulated time.
    /// Returns whether it finished.
    pub(crate) fn run(&mut self, limit: Duration) -> bool {
        let end = Instant::ZERO + limit;
        loop {
            self.send();
            if self.sender.is_complete() && self.wire.is_empty() {
                return true;
            }
            let (sender_due, receiver_due) = (self.sender.poll_timeout(), self.receiver.poll_timeout());
            let next = [self.wire.front().map(|p| p.arrives), sender_due, receiver_due].into_iter().flatten().min();
            let Some(next) = next.filter(|&t| t <= end) else { return false };
            self.now = next.max(self.now);
            if self.wire.front().is_some_and(|p| p.arrives <= self.now) {
                let p = self.wire.pop_front().expect("a packet arrives");
                self.arrive(p);
            } else {
                // Each end acts on its own timer, as the engine runs them.
                if sender_due.is_some_and(|t| t <= self.now) {
                    self.sender.handle_timeout(self.now);
                }
                if receiver_due.is_some_and(|t| t <= self.now) {
                    self.receiver.handle_timeout(self.now);
                }
            }
        }
    }

    /// Payload bytes the receiver holds in order.
    pub(crate) fn delivered(&self) -> u64 {
        self.receiver.delivered_bytes()
    }

    /// Bytes the sender sent more than once.
    pub(crate) fn retransmitted(&self) -> u64 {
        crate::transport::outcome(&self.sender, &self.receiver).retransmitted_bytes
    }

    /// Puts what either end has to send on the path: data through the ports' processors on its
    /// way out, ACKs past the nodes on its way back.
    fn send(&mut self) {
        let route = RouteCursor { start: 0, len: 2, hop: 0 };
        while let Some(out) = self.sender.poll_transmit(self.now) {
            let packet = Packet::data(FLOW, &out.seg, route, 0, out.header.as_ref());
            let number = self.data_sent;
            self.data_sent += 1;
            let mut header = out.header;
            let dropped = self.drop_data.contains(&number);
            for (i, (view, processor)) in self.ports.iter_mut().enumerate() {
                if let (Some(p), Some(h)) = (processor.as_mut(), header.as_mut()) {
                    if h.way(PacketKind::Data) == Some(Way::Out) {
                        let answered = p.on_out(&Passage::new(self.now, FLOW, view, &self.flows), h);
                        // A drop is at the switch port, after its processor answered, as the
                        // engine drops a packet its buffer has no room for.
                        if answered && dropped && i == 1 {
                            p.on_dropped(self.now, h);
                        }
                    }
                }
            }
            self.log.push((PacketKind::Data, packet.seq, packet.len, packet.wire_bytes));
            if !dropped {
                self.wire.push_back(InFlight { arrives: self.now + DELAY, packet, header });
            }
        }
        while let Some(out) = self.receiver.poll_ack(self.now) {
            let packet = Packet::ack(FLOW, &out.ack, out.ect, route, 0, out.header.as_ref());
            let mut header = out.header;
            // On its way back the ACK passes the switch, then reaches the sender's host: each
            // node's port that sends the flow's data sees it.
            for (view, processor) in self.ports.iter_mut().rev() {
                if let (Some(p), Some(h)) = (processor.as_mut(), header.as_mut()) {
                    if h.way(PacketKind::Ack) == Some(Way::Back) {
                        p.on_back(&Passage::new(self.now, FLOW, view, &self.flows), h);
                    }
                }
            }
            self.log.push((PacketKind::Ack, packet.seq, packet.len, packet.wire_bytes));
            self.wire.push_back(InFlight { arrives: self.now + DELAY, packet, header });
        }
        // The one flow is the only one a wake can name; its ends were just polled.
        while self.setups.poll_wake().is_some() {}
    }

    /// A packet reaches its end.
    fn arrive(&mut self, p: InFlight) {
        match p.packet.kind {
            PacketKind::Data => self.receiver.handle_data(self.now, &p.packet, p.header.as_ref()),
            PacketKind::Ack => self.sender.handle_ack(self.now, &p.packet, p.header.as_ref()),
        }
    }
}
