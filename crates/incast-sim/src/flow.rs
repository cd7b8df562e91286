//! A flow's two endpoints and the transport they run, dispatched by enum (no boxing per packet).
//! The engine talks to every transport through the same sans-IO calls.

use incast_proto::cc::{CcKind, CongestionControl};
use incast_proto::tcp::{AckSegment, DataSegment, TcpReceiver, TcpSender};
use incast_proto::time::Instant;

use crate::packet::RouteCursor;
use crate::scenario::{Protocol, TransportSpec};
use crate::workload::FlowPlan;

/// The transport state of a running flow.
pub(crate) enum Transport {
    /// Window-based TCP (NewReno or DCTCP policy) over one reliability mechanism.
    Tcp {
        sender: Box<TcpSender>,
        receiver: Box<TcpReceiver>,
    },
}

impl Transport {
    /// Creates the endpoints of `protocol` for a flow starting at `now`.
    pub(crate) fn new(protocol: Protocol, spec: &TransportSpec, plan: &FlowPlan, deadline: Option<Instant>, now: Instant) -> Transport {
        let (kind, ect) = match protocol {
            Protocol::Tcp => (CcKind::NewReno, false),
            Protocol::Dctcp => (CcKind::Dctcp { g: spec.dctcp_g }, true),
        };
        let sender = TcpSender::new(spec.tcp, CongestionControl::new(kind), plan.size_bytes, ect, deadline, now);
        Transport::Tcp { sender: Box::new(sender), receiver: Box::new(TcpReceiver::new(&spec.tcp)) }
    }

    pub(crate) fn poll_transmit(&mut self, now: Instant) -> Option<DataSegment> {
        match self {
            Transport::Tcp { sender, .. } => sender.poll_transmit(now),
        }
    }

    pub(crate) fn poll_ack(&mut self, now: Instant) -> Option<AckSegment> {
        match self {
            Transport::Tcp { receiver, .. } => receiver.poll_ack(now),
        }
    }

    pub(crate) fn handle_data(&mut self, now: Instant, seg: &DataSegment) {
        match self {
            Transport::Tcp { receiver, .. } => receiver.handle_data(now, seg),
        }
    }

    pub(crate) fn handle_ack(&mut self, now: Instant, ack: &AckSegment) {
        match self {
            Transport::Tcp { sender, .. } => sender.handle_ack(now, ack),
        }
    }

    /// Lets both endpoints act on whatever timers are due.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        match self {
            Transport::Tcp { sender, receiver } => {
                sender.handle_timeout(now);
                receiver.handle_timeout(now);
            }
        }
    }

    /// The earliest timer of either endpoint.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        match self {
            Transport::Tcp { sender, receiver } => match (sender.poll_timeout(), receiver.poll_timeout()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// Payload bytes the receiver holds in order.
    pub(crate) fn delivered_bytes(&self) -> u64 {
        match self {
            Transport::Tcp { receiver, .. } => receiver.bytes_received_in_order(),
        }
    }

    /// Whether the sender has nothing left to do.
    pub(crate) fn sender_complete(&self) -> bool {
        match self {
            Transport::Tcp { sender, .. } => sender.is_complete(),
        }
    }

    /// What the flow achieved so far.
    pub(crate) fn outcome(&self) -> Outcome {
        match self {
            Transport::Tcp { sender, receiver } => {
                let s = sender.stats();
                Outcome {
                    delivered_bytes: receiver.bytes_received_in_order(),
                    retransmitted_bytes: s.retransmitted_bytes,
                    timeouts: s.timeouts as u32,
                }
            }
        }
    }
}

/// The counters a flow reports, kept after its endpoints are freed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) delivered_bytes: u64,
    pub(crate) retransmitted_bytes: u64,
    pub(crate) timeouts: u32,
}

/// A flow of the run: its plan, routes, transport and outcome.
pub(crate) struct Flow {
    pub(crate) plan: FlowPlan,
    pub(crate) protocol: Protocol,
    pub(crate) forward: RouteCursor,
    pub(crate) reverse: RouteCursor,
    pub(crate) transport: Option<Transport>,
    /// Final counters once `transport` has been freed.
    pub(crate) outcome: Option<Outcome>,
    pub(crate) started_at: Option<Instant>,
    pub(crate) finished_at: Option<Instant>,
    /// Absolute deadline once started.
    pub(crate) deadline_at: Option<Instant>,
    /// Time of this flow's pending timer event, if any (later events for it are stale).
    pub(crate) timer_at: Option<Instant>,
    /// Waiting for its host's NIC to drain.
    pub(crate) blocked: bool,
}

impl Flow {
    /// Counters so far (zero before the flow starts).
    pub(crate) fn outcome(&self) -> Outcome {
        self.outcome.or_else(|| self.transport.as_ref().map(Transport::outcome)).unwrap_or_default()
    }

    /// Frees the endpoints of a flow whose both ends are done, keeping its counters.
    pub(crate) fn retire(&mut self) {
        self.outcome = Some(self.outcome());
        self.transport = None;
        self.timer_at = None;
    }
}
