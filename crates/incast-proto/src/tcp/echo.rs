//! The receiver of a transport whose packets carry a header for the network to answer (D3's rate
//! request, PDQ's scheduling header): TCP's reassembly and cumulative ACKs for the data, and the
//! answered header carried straight back to the sender on the ACK its packet triggers.
//!
//! ```text
//!  (DataSegment, header?) ──► EchoReceiver ── data ──► TcpReceiver (reassembly, cumulative ACK)
//!                                 │ echo                          │ AckSegment
//!                                 └──────────► (AckSegment, Some(echo)) ◄──┘  at once
//! ```

use std::collections::VecDeque;

use super::{AckSegment, DataSegment, TcpConfig, TcpReceiver};
use crate::time::Instant;

/// The receiver of one flow whose packets may carry a header to echo, of type `E` (what the
/// sender needs back of it): a sans-IO state machine.
///
/// A driver feeds every arriving packet, with what to echo of its header if it carried one, to
/// [`handle_data`](Self::handle_data), then calls [`poll_ack`](Self::poll_ack) in a loop until
/// `None` and sends each ACK with its echo; it arms a timer at
/// [`poll_timeout`](Self::poll_timeout) (the delayed-ACK timer, re-read after every call) and calls
/// [`handle_timeout`](Self::handle_timeout) when it fires (early calls are harmless).
///
/// A packet that carried a header is acknowledged at once, even with delayed ACKs: the sender
/// waits for the answer. Its ACK echoes that packet's timestamp, so the sender can tell which
/// packet the answer belongs to and samples its RTT. A header-only packet is not data: it is
/// answered with the current cumulative ACK and never shown to the [`TcpReceiver`].
#[derive(Clone, Debug)]
pub struct EchoReceiver<E> {
    /// Reassembly and ACK policy for the data.
    tcp: TcpReceiver,
    /// ACKs waiting for `poll_ack`, with the echo on the ones that answer a header. A few per
    /// arriving packet at most, so the queue stops growing after the first packets.
    pending: VecDeque<(AckSegment, Option<E>)>,
    /// Header bytes of a pure ACK (these receivers send no SACK blocks).
    ack_header_bytes: u16,
}

impl<E: Copy> EchoReceiver<E> {
    /// A receiver expecting byte 0 first. `config.delayed_ack` applies to data packets without a
    /// header; SACK is off (the senders that echo headers recover losses NewReno's way).
    pub fn new(config: &TcpConfig) -> Self {
        let config = TcpConfig { sack: false, ..*config };
        EchoReceiver {
            tcp: TcpReceiver::new(&config),
            pending: VecDeque::with_capacity(4),
            ack_header_bytes: config.ack_header_bytes(0) as u16,
        }
    }

    /// Processes one arriving packet and queues the ACKs it calls for; `echo` is what goes back
    /// of its header, if it carried one.
    ///
    /// A zero-length segment without a header carries nothing to acknowledge and is ignored.
    pub fn handle_data(&mut self, now: Instant, seg: &DataSegment, echo: Option<E>) {
        if seg.len > 0 {
            self.tcp.handle_data(now, seg);
        }
        let Some(echo) = echo else {
            self.drain_tcp(now);
            return;
        };
        self.tcp.flush_delayed_ack();
        let queued = self.pending.len();
        self.drain_tcp(now);
        if self.pending.len() > queued {
            // The last ACK queued covers this packet; it carries the echo and this packet's
            // timestamp rather than an older delayed segment's.
            if let Some(last) = self.pending.back_mut() {
                last.0.ts_echo = seg.ts;
                last.1 = Some(echo);
            }
        } else {
            let ack = AckSegment {
                header_bytes: self.ack_header_bytes,
                ..AckSegment::plain(self.tcp.bytes_received_in_order(), false, seg.ts)
            };
            self.pending.push_back((ack, Some(echo)));
        }
    }

    /// The next ACK to send and the echo it carries, if any. Call in a loop until `None`.
    #[must_use]
    pub fn poll_ack(&mut self, _now: Instant) -> Option<(AckSegment, Option<E>)> {
        self.pending.pop_front()
    }

    /// When the delayed-ACK timer expires, if it is armed.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.tcp.poll_timeout()
    }

    /// Sends the delayed ACK if its timer is due; otherwise does nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.tcp.handle_timeout(now);
        self.drain_tcp(now);
    }

    /// Every byte below this offset has arrived.
    pub fn bytes_received_in_order(&self) -> u64 {
        self.tcp.bytes_received_in_order()
    }

    /// Moves the data ACKs the TCP receiver queued into this receiver's queue, in order.
    fn drain_tcp(&mut self, now: Instant) {
        while let Some(ack) = self.tcp.poll_ack(now) {
            self.pending.push_back((ack, None));
        }
    }
}
