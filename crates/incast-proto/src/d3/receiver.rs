//! The D3 receiver (D3, SIGCOMM 2011, Section 5, Figure 7 steps 2 and 4): TCP's cumulative ACKs
//! for the data, plus the allocation vector of every rate request carried straight back to the
//! sender on the ACK it triggers.
//!
//! Not modelled: the receiver's own rate request on the SYN/ACK (Figure 7 step 2, "and a rate
//! request of their own") and the reverse-direction feedback field of Figure 6. The receiver
//! sends no data, only ACKs, so it needs no allocation; its ACKs are small and unaccounted for by
//! the routers, as in the paper's description of router operation (Section 4.3). The SYN/ACK is
//! simply the ACK of the SYN carrying the SYN's feedback.

use super::header::{CongestionHeader, Feedback};
use crate::tcp::{AckSegment, DataSegment, EchoReceiver, TcpConfig};
use crate::time::Instant;

/// The receiver of one D3 flow: a sans-IO state machine, the receiver every header-echoing
/// transport shares ([`EchoReceiver`], whose driver contract it keeps) echoing the allocation
/// vector of each rate request, plus whether the FIN arrived.
///
/// A packet that carried a rate request is acknowledged at once, even with delayed ACKs: the
/// sender's next interval waits for that feedback.
#[derive(Clone, Debug)]
pub struct D3Receiver {
    echo: EchoReceiver<Feedback>,
    /// A FIN (a quenching one included) has arrived.
    fin_received: bool,
}

impl D3Receiver {
    /// A receiver expecting byte 0 first. `config.delayed_ack` applies to data packets without a
    /// rate request.
    ///
    /// D3 recovers losses by NewReno over its rate budget, so its TCP never uses SACK.
    pub fn new(config: &TcpConfig) -> Self {
        D3Receiver { echo: EchoReceiver::new(config), fin_received: false }
    }

    /// Processes one arriving packet and queues the ACKs it calls for.
    ///
    /// A zero-length segment without a header carries nothing to acknowledge and is ignored.
    pub fn handle_data(
        &mut self,
        now: Instant,
        seg: &DataSegment,
        header: Option<&CongestionHeader>,
    ) {
        self.fin_received |= header.is_some_and(|h| h.fin);
        self.echo.handle_data(now, seg, header.map(Feedback::from_request));
    }

    /// The next ACK to send and the rate feedback it carries, if any. Call in a loop until
    /// `None`.
    #[must_use]
    pub fn poll_ack(&mut self, now: Instant) -> Option<(AckSegment, Option<Feedback>)> {
        self.echo.poll_ack(now)
    }

    /// When the delayed-ACK timer expires, if it is armed.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.echo.poll_timeout()
    }

    /// Sends the delayed ACK if its timer is due; otherwise does nothing.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.echo.handle_timeout(now);
    }

    /// Every byte below this offset has arrived.
    pub fn bytes_received_in_order(&self) -> u64 {
        self.echo.bytes_received_in_order()
    }

    /// Whether a FIN has arrived (the sender finished or quenched the flow).
    pub fn fin_received(&self) -> bool {
        self.fin_received
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{DelayedAck, MSS_BYTES};
    use crate::time::Duration;

    const MSS: u64 = MSS_BYTES as u64;

    fn us(t: u64) -> Instant {
        Instant::ZERO + Duration::from_us(t)
    }

    /// Segment number `n` (full size, or header-only if `len` is 0), sent at `n` microseconds.
    fn seg(n: u64, len: u32) -> DataSegment {
        DataSegment::numbered(n, len)
    }

    /// A request that crossed two routers, which granted `a` and `b`.
    fn request(a: u64, b: u64) -> CongestionHeader {
        let mut h = CongestionHeader {
            desired: 1_000,
            ..CongestionHeader::default()
        };
        h.record_alloc(a);
        h.record_alloc(b);
        h
    }

    fn receiver(delayed: bool) -> D3Receiver {
        let delayed_ack = delayed.then_some(DelayedAck {
            segments: 2,
            timeout: Duration::from_us(40), quickack: 0
        });
        D3Receiver::new(&TcpConfig {
            delayed_ack,
            ..TcpConfig::default()
        })
    }

    /// (ack in segments, ts_echo in us, feedback's hops and first two slots) of one ACK.
    type AckSummary = (u64, u64, Option<(u8, u64, u64)>);

    /// Every pending ACK, summarized.
    fn summary(r: &mut D3Receiver) -> Vec<AckSummary> {
        std::iter::from_fn(|| r.poll_ack(Instant::ZERO))
            .map(|(a, f)| {
                (
                    a.ack / MSS,
                    a.ts_echo.as_ps() / 1_000_000,
                    f.map(|f| (f.hops, f.alloc[0], f.alloc[1])),
                )
            })
            .collect()
    }

    #[test]
    fn syn_header_only_answered_with_feedback_not_data() {
        let mut r = receiver(false);
        let syn = CongestionHeader {
            syn: true,
            ..request(500, 300)
        };
        r.handle_data(us(10), &seg(0, 0), Some(&syn));
        assert_eq!(summary(&mut r), vec![(0, 0, Some((2, 500, 300)))]);
        assert_eq!(r.bytes_received_in_order(), 0);
        assert!(!r.fin_received());
    }

    #[test]
    fn data_with_request_acked_once_with_feedback_rest_plain() {
        let mut r = receiver(false);
        r.handle_data(us(10), &seg(0, MSS_BYTES), Some(&request(7, 9)));
        r.handle_data(us(11), &seg(1, MSS_BYTES), None);
        assert_eq!(summary(&mut r), vec![(1, 0, Some((2, 7, 9))), (2, 1, None)]);
    }

    #[test]
    fn delayed_ack_request_flushes_at_once_echoing_request_ts() {
        let mut r = receiver(true);
        r.handle_data(us(10), &seg(0, MSS_BYTES), None);
        assert_eq!(summary(&mut r), vec![]);
        // The request would have completed a delayed pair anyway; alone it must still go now.
        r.handle_data(us(11), &seg(1, MSS_BYTES), Some(&request(7, 9)));
        assert_eq!(summary(&mut r), vec![(2, 1, Some((2, 7, 9)))]);
        r.handle_data(us(12), &seg(2, MSS_BYTES), Some(&request(4, 4)));
        assert_eq!(summary(&mut r), vec![(3, 2, Some((2, 4, 4)))]);
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn header_only_with_delayed_data_pending_one_ack_covers_both() {
        let mut r = receiver(true);
        r.handle_data(us(10), &seg(0, MSS_BYTES), None);
        r.handle_data(us(20), &seg(1, 0), Some(&request(3, 5)));
        assert_eq!(summary(&mut r), vec![(1, 1, Some((2, 3, 5)))]);
        assert_eq!(r.poll_timeout(), None);
    }

    #[test]
    fn header_only_above_hole_repeats_cumulative_ack() {
        let mut r = receiver(false);
        r.handle_data(us(10), &seg(0, MSS_BYTES), None);
        r.handle_data(us(11), &seg(2, MSS_BYTES), None);
        r.handle_data(us(12), &seg(3, 0), Some(&request(1, 2)));
        assert_eq!(
            summary(&mut r),
            vec![(1, 0, None), (1, 2, None), (1, 3, Some((2, 1, 2)))]
        );
    }

    #[test]
    fn fin_marks_fin_received_and_feedback_returns_empty_vector() {
        let mut r = receiver(false);
        let fin = CongestionHeader {
            fin: true,
            ..CongestionHeader::default()
        };
        r.handle_data(us(10), &seg(0, 100), Some(&fin));
        let acks = summary(&mut r);
        assert_eq!(acks.len(), 1);
        assert!(r.fin_received());
        assert_eq!(r.bytes_received_in_order(), 100);
        assert_eq!(acks[0].2, Some((0, 0, 0)));
    }

    #[test]
    fn empty_segment_without_header_ignored() {
        let mut r = receiver(false);
        r.handle_data(us(10), &seg(0, 0), None);
        assert_eq!(summary(&mut r), vec![]);
    }

    #[test]
    fn delayed_ack_timer_delegated() {
        let mut r = receiver(true);
        r.handle_data(us(10), &seg(0, MSS_BYTES), None);
        assert_eq!(r.poll_timeout(), Some(us(50)));
        r.handle_timeout(us(49));
        assert_eq!(summary(&mut r), vec![]);
        r.handle_timeout(us(50));
        assert_eq!(summary(&mut r), vec![(1, 0, None)]);
    }
}
