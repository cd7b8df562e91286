//! A flow of the run: its plan, routes, the two ends of its transport while it runs
//! (`transport::Sender`, `transport::Receiver`), and what it achieved once they are freed.

use incast_proto::time::{Duration, Instant};

use crate::connection::{Connection, Span};
use crate::network::Routes;
use crate::outcome::Outcome;
use crate::packet::RouteCursor;
use crate::scenario::Protocol;
use crate::transport::{Receiver, Sender};
use crate::workload::FlowPlan;

/// A flow of the run: its plan, routes, transport and outcome.
pub(crate) struct Flow {
    pub(crate) plan: FlowPlan,
    pub(crate) protocol: Protocol,
    pub(crate) forward: RouteCursor,
    pub(crate) reverse: RouteCursor,
    /// The sending end, from the flow's start until it retires. Each end is stored, reached and
    /// freed on its own, as each will live in the part of the network of its own host when a run
    /// is cut into parts (issue 41); this engine frees both at once (`retire`).
    pub(crate) sender: Option<Sender>,
    /// The receiving end, as long as the sending end.
    pub(crate) receiver: Option<Receiver>,
    /// Final counters once the ends have been freed.
    pub(crate) outcome: Option<Outcome>,
    pub(crate) started_at: Option<Instant>,
    pub(crate) finished_at: Option<Instant>,
    /// Absolute deadline once started.
    pub(crate) deadline_at: Option<Instant>,
    /// Time of the sender end's pending timer event, if any (later events for it are stale).
    pub(crate) sender_timer_at: Option<Instant>,
    /// Time of the receiver end's pending timer event, if any.
    pub(crate) receiver_timer_at: Option<Instant>,
    /// Waiting for its host's NIC to drain.
    pub(crate) blocked: bool,
    /// Its sender is done and the flow retires at the next barrier (a run cut into parts:
    /// `crate::rounds`; the receiver's part may still be acting on it until then).
    pub(crate) retiring: bool,
    /// A message of a persistent connection: where its bytes are on the connection.
    pub(crate) span: Option<Span>,
    /// The connection this flow carries, if it opened a persistent one; it then keeps its
    /// transport (never retires) for the connection's later messages.
    pub(crate) connection: Option<Box<Connection>>,
    /// When the receiver last got new in-order bytes, and the longest wait so far.
    pub(crate) stalls: Stalls,
    /// Its packets in the network (queued or on a wire): an arriving packet reads its flow, so
    /// an ended flow is released only once none is left. On several threads each engine counts
    /// the packets that entered its parts less those that left the network there, modulo 2^32:
    /// the sum over engines is the count.
    pub(crate) in_flight: u32,
    /// Forward, reverse: the route is the flow's own, given back when it is released
    /// (`Network::release_routes`).
    pub(crate) own_routes: [bool; 2],
}

/// When a receiver last got new in-order bytes, and the longest it went without (starvation is
/// what D3's time slices bound; a timeout shows here too). Two words per flow: a run keeps
/// millions of flows.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stalls {
    /// The flow's start, then its last delivery of new bytes; `Instant::NEVER` once the flow
    /// has ended and no gap is open any more.
    pub(crate) since: Instant,
    /// Longest gap between two such instants so far.
    pub(crate) longest: Duration,
}

impl Stalls {
    /// The receiver got new in-order bytes at `now`.
    #[inline]
    pub(crate) fn on_progress(&mut self, now: Instant) {
        self.longest = self.longest_at(now);
        self.since = now;
    }

    /// The flow ended at `now`: the gap open until then counts, and no later one.
    pub(crate) fn close(&mut self, now: Instant) {
        self.longest = self.longest_at(now);
        self.since = Instant::NEVER;
    }

    /// The longest gap, counting the one still open at `now`.
    pub(crate) fn longest_at(&self, now: Instant) -> Duration {
        self.longest.max(now.saturating_since(self.since))
    }
}

impl Flow {
    /// A flow of `plan` with its `protocol` and routes, not started.
    pub(crate) fn new(plan: FlowPlan, protocol: Protocol, routes: Routes) -> Flow {
        Flow {
            plan,
            protocol,
            forward: routes.forward,
            reverse: routes.reverse,
            own_routes: routes.own,
            sender: None,
            receiver: None,
            outcome: None,
            started_at: None,
            finished_at: None,
            deadline_at: None,
            sender_timer_at: None,
            receiver_timer_at: None,
            blocked: false,
            retiring: false,
            span: None,
            connection: None,
            stalls: Stalls::default(),
            in_flight: 0,
        }
    }

    /// Its routes, as `Network::add_routes` gave them.
    pub(crate) fn routes(&self) -> Routes {
        Routes { forward: self.forward, reverse: self.reverse, own: self.own_routes }
    }

    /// An ended flow with no transport, no timer and no route of its own (for tests).
    #[cfg(test)]
    pub(crate) fn placeholder() -> Flow {
        let plan = FlowPlan {
            src: 0,
            dst: 0,
            size_bytes: Some(0),
            start: Instant::ZERO,
            deadline: None,
            protocol: None,
            priority: 0,
            workload: 0,
            round: 0,
            app: None,
            background: false,
            persistent: false,
        };
        let nowhere = RouteCursor { start: 0, len: 0, hop: 0 };
        let routes = Routes { forward: nowhere, reverse: nowhere, own: [false; 2] };
        Flow { outcome: Some(Outcome::default()), ..Flow::new(plan, Protocol::Tcp, routes) }
    }

    /// Counters so far (zero before the flow starts) of a flow that is not a message of a
    /// persistent connection; see `Span::outcome` for those.
    pub(crate) fn outcome(&self) -> Outcome {
        let ends = || Some(crate::transport::outcome(self.sender.as_ref()?, self.receiver.as_ref()?));
        self.outcome.or_else(ends).unwrap_or_default()
    }

    /// When the flow is due: its deadline counted from its start, or from its planned start if
    /// it never started; `None` without a deadline.
    pub(crate) fn due(&self) -> Option<Instant> {
        self.deadline_at.or_else(|| Some(self.plan.start + self.plan.deadline?))
    }

    /// The flow has started and not ended: it still has bytes to get across (a long-lived flow
    /// always has).
    pub(crate) fn running(&self) -> bool {
        self.started_at.is_some() && self.finished_at.is_none() && self.outcome.is_none()
    }

    /// The host gave up on the flow (D3 quenching): it retired without the receiver holding
    /// every byte, so it will never finish.
    pub(crate) fn abandoned(&self) -> bool {
        self.outcome.is_some() && self.finished_at.is_none()
    }

    /// Whether both ends are freed (or were never made): the flow runs no more.
    #[inline]
    pub(crate) fn ends_freed(&self) -> bool {
        self.sender.is_none() && self.receiver.is_none()
    }

    /// Frees the endpoints of a flow whose both ends are done, keeping its counters.
    pub(crate) fn retire(&mut self) {
        self.outcome = Some(self.outcome());
        self.sender = None;
        self.receiver = None;
        self.sender_timer_at = None;
        self.receiver_timer_at = None;
    }
}
