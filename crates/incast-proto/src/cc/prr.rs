//! Proportional Rate Reduction (RFC 6937): while the window comes down to ssthresh, after a
//! loss or an ECN-Echo, each ACK releases data in proportion to what it says was delivered, so
//! the sender neither falls silent (as after an instant cut) nor bursts.
//!
//! ```text
//!   pipe > ssthresh:   sndcnt = ceil(prr_delivered x ssthresh / RecoverFS) - prr_out   (in MSS)
//!   pipe <= ssthresh:  sndcnt = min(ssthresh - pipe, max(prr_delivered - prr_out, DeliveredData)
//!                                   + MSS if the ACK advanced snd_una without new loss)
//!   cwnd = pipe + max(sndcnt, MSS if nothing was sent yet)
//! ```
//!
//! The slow-start part and the minimum of one segment follow Linux's `tcp_cwnd_reduction`
//! (and ns-3's `TcpPrrRecovery`), which add one MSS only on a "safe" ACK and force the first
//! retransmission out.

/// The PRR state of one reduction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Prr {
    /// Bytes delivered to the receiver since the reduction began.
    delivered: u64,
    /// Bytes sent since the reduction began.
    out: u64,
    /// RecoverFS: the flight size when it began (at least one byte, as a divisor).
    recover_fs: u64,
    /// ns-3.44's arithmetic (`WindowConfig::ns3_bookkeeping`) with RecoverFS as it was, zero
    /// included.
    ns3: Option<u64>,
}

impl Prr {
    /// A reduction starting with `flight` bytes outstanding.
    pub(crate) fn start(flight: u64) -> Prr {
        Prr { delivered: 0, out: 0, recover_fs: flight.max(1), ns3: None }
    }

    /// A reduction as ns-3.44's `TcpPrrRecovery` runs it, from a pipe of `pipe` bytes: the
    /// proportional share rounded up in bytes rather than segments (tcp-prr-recovery.cc line
    /// 90), and the slow-start bound computed as it is there (line 95,
    /// `int limit = std::max(m_prrDelivered - m_prrOut, deliveredBytes)` on unsigned
    /// operands): once more was sent than delivered the difference wraps, the bound is
    /// negative and nothing more goes out until deliveries catch up.
    pub(crate) fn start_ns3(pipe: u64) -> Prr {
        Prr { delivered: 0, out: 0, recover_fs: pipe.max(1), ns3: Some(pipe) }
    }

    /// Whether a duplicate ACK counts one segment more than it delivered (ns-3's
    /// `DoRecovery` with `isDupAck`, tcp-prr-recovery.cc line 74: while less than RecoverFS
    /// was delivered).
    pub(crate) fn counts_duplicate(&self) -> bool {
        self.ns3.is_some_and(|fs| self.delivered < fs)
    }

    /// Counts bytes sent (new or resent) during the reduction.
    pub(crate) fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// The window after an ACK that delivered `delivered` bytes, with `pipe` bytes in flight
    /// after it, towards `ssthresh`; `None` if the ACK delivered nothing (the window stays).
    pub(crate) fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, safe_ack: bool, mss: u64) -> Option<u64> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: the reduction spreads over one round trip of ACKs. CEIL is
            // taken in whole segments, as RFC 6937's examples and Linux count (in bytes a
            // half-segment allowance would hold every other segment back one more ACK); ns-3
            // takes it in bytes.
            let share = u128::from(self.delivered) * u128::from(ssthresh);
            let allowed = if self.ns3.is_some() {
                share.div_ceil(u128::from(self.recover_fs))
            } else {
                share.div_ceil(u128::from(self.recover_fs) * u128::from(mss)) * u128::from(mss)
            };
            (allowed as u64).saturating_sub(self.out)
        } else if self.ns3.is_some() {
            let mut limit = if self.delivered >= self.out {
                i128::from((self.delivered - self.out).max(delivered))
            } else {
                -i128::from(self.out - self.delivered)
            };
            if safe_ack {
                limit += i128::from(mss);
            }
            limit.min(i128::from(ssthresh - pipe)).max(0) as u64
        } else {
            // Slow-start reduction bound: catch up towards ssthresh, at most as fast as slow
            // start would.
            let mut limit = self.delivered.saturating_sub(self.out).max(delivered);
            if safe_ack {
                limit += mss;
            }
            limit.min(ssthresh - pipe)
        };
        let sndcnt = if self.out == 0 { sndcnt.max(mss) } else { sndcnt };
        Some(pipe + sndcnt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// RFC 6937 Section 6, first example: 20 segments in flight, the first lost, ssthresh 10.
    /// Duplicate ACKs 1 and 2 release new segments by limited transmit, so the pipe is 19 when
    /// the third starts recovery; from there PRR sends one segment for every second ACK (the
    /// retransmission first), spreading the reduction over the round trip instead of waiting
    /// half of it (RFC 6675) or bursting.
    #[test]
    fn prr_rfc6937_example_one_loss_sends_every_other_ack() {
        let ssthresh = 10 * MSS;
        let mut prr = Prr::start(20 * MSS);
        let mut pipe = 19 * MSS;
        let mut sent = Vec::new();
        // Duplicate ACKs 3 to 19, each SACKing one segment.
        for _ in 3..=19 {
            pipe -= MSS;
            let cwnd = prr.on_ack(MSS, pipe, ssthresh, false, MSS).unwrap();
            let mut n = 0;
            while pipe + MSS <= cwnd {
                prr.on_sent(MSS);
                pipe += MSS;
                n += 1;
            }
            sent.push(n);
        }
        // R on ACK 3, then one new segment on ACKs 5, 7, ..., 17: half a segment per segment
        // delivered (ssthresh / RecoverFS = 1/2). ACK 18 brings the pipe to ssthresh, where
        // the slow-start bound holds it (ssthresh - pipe = 0), so ACK 19 sends nothing.
        assert_eq!(sent, vec![1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0]);
        assert_eq!(pipe, ssthresh);
    }

    /// RFC 6937 Section 5, second example: 4 of 20 segments lost; once pipe falls below
    /// ssthresh the slow-start bound lets the sender catch up by at most one extra segment per
    /// ACK, and never beyond ssthresh.
    #[test]
    fn prr_rfc6937_example_heavy_loss_catches_up_to_ssthresh() {
        let ssthresh = 10 * MSS;
        let mut prr = Prr::start(20 * MSS);
        let mut pipe = 16 * MSS; // 4 lost
        let mut total = 0;
        for _ in 0..16 {
            pipe -= MSS;
            let cwnd = prr.on_ack(MSS, pipe, ssthresh, false, MSS).unwrap();
            while pipe + MSS <= cwnd {
                prr.on_sent(MSS);
                pipe += MSS;
                total += 1;
            }
            assert!(pipe <= ssthresh.max(16 * MSS));
        }
        // Every segment delivered allowed about half a segment out, then catch-up to ssthresh.
        assert_eq!(pipe, ssthresh);
        assert!(total >= 8, "sent {total}");
    }

    #[test]
    fn prr_first_ack_forces_one_segment_even_far_above_ssthresh() {
        let mut prr = Prr::start(100 * MSS);
        assert_eq!(prr.on_ack(MSS, 99 * MSS, 10 * MSS, false, MSS), Some(100 * MSS));
        prr.on_sent(MSS);
        assert_eq!(prr.on_ack(MSS, 99 * MSS, 10 * MSS, false, MSS), Some(99 * MSS));
        assert_eq!(prr.on_ack(0, 98 * MSS, 10 * MSS, false, MSS), None);
    }

    #[test]
    fn prr_safe_ack_adds_one_segment_below_ssthresh() {
        let mut prr = Prr::start(10 * MSS);
        prr.on_sent(MSS);
        let cautious = prr.on_ack(MSS, 2 * MSS, 8 * MSS, false, MSS).unwrap();
        let mut prr2 = Prr::start(10 * MSS);
        prr2.on_sent(MSS);
        let safe = prr2.on_ack(MSS, 2 * MSS, 8 * MSS, true, MSS).unwrap();
        assert_eq!((cautious, safe), (3 * MSS, 4 * MSS));
    }
}
