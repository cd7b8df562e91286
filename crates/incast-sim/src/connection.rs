//! Persistent connections: one TCP connection carrying a sequence of messages, each of which is
//! still a flow of its own in the results (its start, finish, deadline and bytes).
//!
//! The first message's flow opens the connection and keeps its transport for the rest of the
//! run (its *carrier*); every packet of the connection names the carrier. A later message is
//! appended to the sender's byte stream (`TcpSender::push_message`), and finishes when the
//! receiver holds its last byte in order, which is all the receiver side needs to know:
//!
//! ```text
//!   bytes  0 ........ 2000 ........ 8000 ...... 10000
//!          [ message A  ][  message B  ][ message C ]     ← one send sequence
//!   delivered in order ≥ 2000: A finishes; ≥ 8000: B finishes; ...
//! ```
//!
//! Retransmissions and timeouts are the connection's; each is charged to the oldest message not
//! yet delivered when it happens (the one whose bytes are in the way), or to the latest message
//! once all are delivered.

use std::collections::VecDeque;

use crate::outcome::Outcome;
use crate::ids::FlowId;

/// Where one message sits in its connection's byte stream, and what it was charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// The flow whose transport carries the connection.
    pub(crate) carrier: FlowId,
    /// Offset of the message's first byte.
    pub(crate) begin: u64,
    /// One past its last byte.
    pub(crate) end: u64,
    /// Connection bytes resent while this message was the oldest undelivered one.
    pub(crate) retransmitted_bytes: u64,
    /// Connection timeouts while this message was the oldest undelivered one.
    pub(crate) timeouts: u32,
}

impl Span {
    /// The message's counters when the connection's receiver holds `delivered` bytes in order.
    pub(crate) fn outcome(&self, delivered: u64) -> Outcome {
        Outcome {
            delivered_bytes: delivered.clamp(self.begin, self.end) - self.begin,
            retransmitted_bytes: self.retransmitted_bytes,
            timeouts: self.timeouts,
            ..Outcome::default()
        }
    }
}

/// The message bookkeeping of one persistent connection, kept by its carrier flow.
#[derive(Clone, Debug)]
pub(crate) struct Connection {
    /// Messages whose last byte the receiver does not hold in order yet, oldest first, with
    /// their end offsets.
    undelivered: VecDeque<(FlowId, u64)>,
    /// The latest message, charged once every message is delivered.
    latest: FlowId,
    /// End of the latest message: where the next one begins.
    end: u64,
    /// Connection counters already charged to messages.
    charged: Outcome,
}

impl Connection {
    /// A connection opened by message `first` of `bytes`, and that message's span.
    pub(crate) fn open(first: FlowId, bytes: u64) -> (Connection, Span) {
        let mut c = Connection { undelivered: VecDeque::new(), latest: first, end: 0, charged: Outcome::default() };
        let span = c.push(first, first, bytes);
        (c, span)
    }

    /// Appends message `flow` of `bytes` to the connection carried by `carrier`.
    pub(crate) fn push(&mut self, carrier: FlowId, flow: FlowId, bytes: u64) -> Span {
        let begin = self.end;
        self.end += bytes;
        self.latest = flow;
        self.undelivered.push_back((flow, self.end));
        Span { carrier, begin, end: self.end, retransmitted_bytes: 0, timeouts: 0 }
    }

    /// The oldest message the receiver now holds completely, given `delivered` bytes in order;
    /// call until `None`.
    pub(crate) fn pop_delivered(&mut self, delivered: u64) -> Option<FlowId> {
        let &(flow, end) = self.undelivered.front()?;
        (end <= delivered).then(|| {
            self.undelivered.pop_front();
            flow
        })
    }

    /// Charges what the connection's counters (`now`) gained since the last call: returns the
    /// message to charge and the retransmitted bytes and timeouts, or `None` if nothing new.
    pub(crate) fn charge(&mut self, now: &Outcome) -> Option<(FlowId, u64, u32)> {
        let bytes = now.retransmitted_bytes - self.charged.retransmitted_bytes;
        let timeouts = now.timeouts - self.charged.timeouts;
        if bytes == 0 && timeouts == 0 {
            return None;
        }
        self.charged = *now;
        let to = self.undelivered.front().map_or(self.latest, |&(flow, _)| flow);
        Some((to, bytes, timeouts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_follow_each_other_and_finish_in_order() {
        let (mut c, a) = Connection::open(FlowId(3), 2_000);
        assert_eq!((a.carrier, a.begin, a.end), (FlowId(3), 0, 2_000));
        let b = c.push(FlowId(3), FlowId(7), 6_000);
        assert_eq!((b.carrier, b.begin, b.end), (FlowId(3), 2_000, 8_000));
        assert_eq!(c.pop_delivered(1_999), None);
        assert_eq!(c.pop_delivered(8_000), Some(FlowId(3)));
        assert_eq!(c.pop_delivered(8_000), Some(FlowId(7)));
        assert_eq!(c.pop_delivered(8_000), None);
        assert_eq!(b.outcome(5_000).delivered_bytes, 3_000);
        assert_eq!(b.outcome(1_000).delivered_bytes, 0);
        assert_eq!(b.outcome(9_000).delivered_bytes, 6_000);
    }

    #[test]
    fn counters_go_to_the_oldest_undelivered_message_then_the_latest() {
        let (mut c, _) = Connection::open(FlowId(0), 2_000);
        c.push(FlowId(0), FlowId(1), 2_000);
        let at = |bytes, timeouts| Outcome { retransmitted_bytes: bytes, timeouts, ..Outcome::default() };
        assert_eq!(c.charge(&at(0, 0)), None);
        assert_eq!(c.charge(&at(1_460, 1)), Some((FlowId(0), 1_460, 1)));
        assert_eq!(c.charge(&at(1_460, 1)), None);
        c.pop_delivered(2_000);
        assert_eq!(c.charge(&at(2_000, 1)), Some((FlowId(1), 540, 0)));
        c.pop_delivered(4_000);
        assert_eq!(c.charge(&at(2_000, 2)), Some((FlowId(1), 0, 1)));
    }
}
