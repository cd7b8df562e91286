//! NDP's receiver (htsim's `NdpSink::receivePacket`, `ndp.cpp` lines
//! 1441-1601): every arrival is answered at once, a whole packet with an ACK and a trimmed one
//! with a NACK, and each asks for one more packet with a PULL, which the host's pacer sends out
//! at its link's rate ([`super::PullPacer`]).
//!
//! htsim's pacer lets the ACK or NACK carry the PULL itself when the pacer is idle
//! (`NdpPullPacer::sendPacket`, lines 1870-1981); here every PULL is a packet of its own, which
//! the pacer sends at once in that case: 64 more bytes on the way back for the same timing
//! (docs/ndp.md).

use std::collections::VecDeque;

use super::packet::NdpHeader;
use crate::tcp::ranges::merge;

/// What the receiver sends back, in order: an ACK or a NACK, then (until the flow is whole) its
/// PULL.
pub type Answer = NdpHeader;

/// One NDP flow's receiver.
#[derive(Clone, Debug, Default)]
pub struct NdpReceiver {
    /// Bytes held in order (htsim's `_cumulative_ack`).
    in_order: u64,
    /// Byte ranges held above the first hole, sorted.
    above: Vec<(u64, u64)>,
    /// The flow's end, once its last packet arrived whole.
    end: Option<u64>,
    /// PULLs asked for so far (htsim's `_pull_no`).
    pull_no: u64,
    /// Answers not yet sent.
    out: VecDeque<Answer>,
}

impl NdpReceiver {
    /// A receiver that holds nothing yet.
    pub fn new() -> NdpReceiver {
        NdpReceiver::default()
    }

    /// A data packet of `len` payload bytes starting at `seq` arrived; `len` 0 if a switch
    /// trimmed it; `last` if it is the flow's last.
    pub fn handle_data(&mut self, seq: u64, len: u32, last: bool) {
        self.pull_no += 1;
        if len == 0 {
            // A header: NACK it so that it comes again, and pull (`send_nack`, lines 1483-1498).
            self.out.push_back(NdpHeader::Nack { seq, cum_ack: self.in_order, pull_no: self.pull_no });
            self.out.push_back(NdpHeader::Pull { pull_no: self.pull_no, cum_ack: self.in_order });
            return;
        }
        let end = seq + u64::from(len);
        if last {
            self.end = Some(end);
        }
        if end > self.in_order {
            let ((start, stop), _) = merge(&mut self.above, seq.max(self.in_order), end);
            if start <= self.in_order {
                self.in_order = stop;
                self.above.retain(|&(s, _)| s > stop);
            }
        }
        let done = self.is_complete();
        self.out.push_back(NdpHeader::Ack { seq, cum_ack: self.in_order, pull_no: self.pull_no, done });
        // The flow is whole: its PULL would pull nothing (htsim flushes it with the others).
        if !done {
            self.out.push_back(NdpHeader::Pull { pull_no: self.pull_no, cum_ack: self.in_order });
        }
    }

    /// The next answer to send.
    #[must_use]
    pub fn poll_answer(&mut self) -> Option<Answer> {
        self.out.pop_front()
    }

    /// Bytes held in order.
    pub fn in_order(&self) -> u64 {
        self.in_order
    }

    /// Whether the flow's last packet arrived and everything before it.
    pub fn is_complete(&self) -> bool {
        self.end.is_some_and(|e| self.in_order >= e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(r: &mut NdpReceiver) -> Vec<Answer> {
        std::iter::from_fn(|| r.poll_answer()).collect()
    }

    #[test]
    fn data_whole_is_acked_and_pulled() {
        let mut r = NdpReceiver::new();
        r.handle_data(0, 9000, false);
        assert_eq!(
            answers(&mut r),
            [NdpHeader::Ack { seq: 0, cum_ack: 9000, pull_no: 1, done: false }, NdpHeader::Pull { pull_no: 1, cum_ack: 9000 }]
        );
    }

    #[test]
    fn data_trimmed_is_nacked_and_pulled() {
        let mut r = NdpReceiver::new();
        r.handle_data(9000, 0, false);
        assert_eq!(answers(&mut r), [NdpHeader::Nack { seq: 9000, cum_ack: 0, pull_no: 1 }, NdpHeader::Pull { pull_no: 1, cum_ack: 0 }]);
    }

    #[test]
    fn data_out_of_order_is_held_until_the_hole_fills() {
        let mut r = NdpReceiver::new();
        r.handle_data(9000, 9000, false);
        r.handle_data(18000, 2000, true);
        assert_eq!(r.in_order(), 0);
        r.handle_data(0, 9000, false);
        assert_eq!(r.in_order(), 20000);
        assert!(r.is_complete());
        let last = answers(&mut r).into_iter().last();
        assert_eq!(last, Some(NdpHeader::Ack { seq: 0, cum_ack: 20000, pull_no: 3, done: true }), "no PULL once whole");
    }

    #[test]
    fn data_duplicate_changes_nothing_held() {
        let mut r = NdpReceiver::new();
        r.handle_data(0, 9000, false);
        r.handle_data(0, 9000, false);
        assert_eq!(r.in_order(), 9000);
        assert_eq!(r.above, []);
    }
}
