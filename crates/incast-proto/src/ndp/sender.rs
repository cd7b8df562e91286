//! NDP's sender (htsim's `NdpSrc`, `ndp.cpp`): it sends its first window at line
//! rate, then one packet for each PULL the receiver paces out, a packet the receiver NACKed before
//! any new one. htsim's sender has no timer (`rtx_timer_hook` returns at once unless built with
//! `RESEND_ON_TIMEOUT`, `ndp.cpp` lines 1141-1145): a packet that the network loses outright (a
//! header past a full header queue, a PULL) is never sent again there. incast's sender keeps one
//! timer for that case, so that every flow ends (docs/ndp.md). With return-to-sender, a switch
//! sends such a header back instead (`handle_returned`, htsim's `processRTS`).
//!
//! Calling order, as every sans-IO endpoint here: `handle_ack`, `handle_nack`, `handle_pull`,
//! `handle_returned` and `handle_timeout` with `now`, then `poll_transmit` until it returns
//! `None`.

use std::collections::{BTreeMap, BTreeSet};

use crate::time::{Duration, Instant};

/// An NDP flow's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdpConfig {
    /// Payload bytes of a full packet (htsim's `Packet::data_packet_size`, its `-mtu`).
    pub mss: u32,
    /// Packets the sender sends before the first PULL (htsim's `-cwnd`).
    pub initial_window: u32,
    /// How long a packet may go without an ACK or NACK before the sender takes it for lost, and
    /// how long a sender with data left and no PULL waits before sending a packet anyway
    /// (incast's own; htsim has none).
    pub rto: Duration,
}

/// A data packet to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdpSegment {
    /// Its first byte.
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Sent before.
    pub retransmission: bool,
    /// The flow's last packet.
    pub last: bool,
}

/// What a sender counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NdpStats {
    /// Payload bytes sent more than once.
    pub retransmitted_bytes: u64,
    /// Times the timer fired with something to do.
    pub timeouts: u64,
    /// NACKs received.
    pub nacks: u64,
    /// PULLs received.
    pub pulls: u64,
    /// Packets a switch returned (return-to-sender).
    pub returned: u64,
    /// Returned packets sent again at once rather than at a PULL.
    pub returned_resent_at_once: u64,
}

/// What the sender heard about one packet, for its recent history (htsim's `FeedbackType`,
/// `ndp.h` line 199; `ECN` is not kept here, as NDP's ports never mark).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Feedback {
    Ack,
    Nack,
    Returned,
}

/// The answers the history keeps (htsim's `HIST_LEN`, `ndp.h` line 200).
const HISTORY: usize = 12;

/// One NDP flow's sender.
#[derive(Clone, Debug)]
pub struct NdpSender {
    config: NdpConfig,
    /// Bytes to send; `None` for a flow without end.
    size: Option<u64>,
    /// The first byte never sent (htsim's `_highest_sent`).
    next_new: u64,
    /// Packets of the first window not sent yet (`startflow`, `ndp.cpp` line 288).
    window_left: u32,
    /// PULLs acted on, and the highest PULL number heard (`_last_pull`, `_max_pull`): the sender
    /// may send `max_pull - last_pull` packets now.
    last_pull: u64,
    max_pull: u64,
    /// Packets the timer, or a returned packet, lets go now beyond the window and the PULLs.
    timer_credit: u32,
    /// PULLs the sender expects: one more for each ACK or NACK, one fewer for each PULL (htsim's
    /// `_pull_window`, `ndp.cpp` lines 698, 712 and 738).
    pull_window: i64,
    /// Packets of the first window sent less answers and returns heard (htsim's
    /// `_first_window_count`, lines 290, 691, 699 and 739: every ACK, NACK or returned packet
    /// counts, the first window's or not).
    first_window_count: i64,
    /// The last [`HISTORY`] answers, oldest overwritten first (`_feedback_history`).
    history: [Option<Feedback>; HISTORY],
    /// Where the next answer goes in `history` (`_feedback_count`).
    history_at: usize,
    /// NACKed packets waiting to be sent again, by first byte, the lowest first (htsim's
    /// `_rtx_queue`, a map by sequence number: `ndp.cpp` lines 564 and 879-881).
    resend: BTreeSet<u64>,
    /// Packets sent and neither ACKed nor NACKed since: first byte, length and when sent.
    unanswered: BTreeMap<u64, (u32, Instant)>,
    /// Bytes the receiver holds in order, as it last said.
    cum_ack: u64,
    /// When the sender last heard from the receiver (or started).
    heard_at: Instant,
    stats: NdpStats,
}

impl NdpSender {
    /// A flow of `size` bytes (`None`: without end) starting at `now`.
    pub fn new(config: NdpConfig, size: Option<u64>, now: Instant) -> NdpSender {
        let mss = u64::from(config.mss.max(1));
        let packets = size.map_or(u64::MAX, |s| s.div_ceil(mss).max(1));
        NdpSender {
            config,
            size,
            next_new: 0,
            // The first window is at most the flow (`_flight_size < _flow_size`, line 288).
            window_left: packets.min(u64::from(config.initial_window)) as u32,
            last_pull: 0,
            max_pull: 0,
            timer_credit: 0,
            pull_window: 0,
            first_window_count: 0,
            history: [None; HISTORY],
            history_at: 0,
            resend: BTreeSet::new(),
            unanswered: BTreeMap::new(),
            cum_ack: 0,
            heard_at: now,
            stats: NdpStats::default(),
        }
    }

    /// The next packet, if the window, a PULL or the timer lets one go and one is left to send.
    /// A PULL that finds nothing to send is kept for a NACK to use (`pull_packets`, lines
    /// 858-873: `_last_pull` only moves for a packet sent).
    #[must_use]
    pub fn poll_transmit(&mut self, now: Instant) -> Option<NdpSegment> {
        let credit = self.window_left > 0 || self.last_pull < self.max_pull || self.timer_credit > 0;
        if !credit {
            return None;
        }
        // A NACKed packet goes before new data (`send_packet`, lines 879-881).
        let segment = if let Some(seq) = self.resend.pop_first() {
            let len = self.len_at(seq);
            self.stats.retransmitted_bytes += u64::from(len);
            NdpSegment { seq, len, retransmission: true, last: self.is_last(seq, len) }
        } else {
            if self.size.is_some_and(|s| self.next_new >= s.max(1)) {
                return None;
            }
            let seq = self.next_new;
            let len = self.len_at(seq);
            self.next_new += u64::from(len).max(1);
            NdpSegment { seq, len, retransmission: false, last: self.is_last(seq, len) }
        };
        if self.window_left > 0 {
            self.window_left -= 1;
            self.first_window_count += 1;
        } else if self.last_pull < self.max_pull {
            self.last_pull += 1;
        } else {
            self.timer_credit -= 1;
        }
        self.unanswered.insert(segment.seq, (segment.len, now));
        Some(segment)
    }

    /// Payload of the packet starting at `seq`: a full one, or what is left of the flow.
    fn len_at(&self, seq: u64) -> u32 {
        let mss = u64::from(self.config.mss);
        self.size.map_or(mss, |s| s.saturating_sub(seq).min(mss)) as u32
    }

    fn is_last(&self, seq: u64, len: u32) -> bool {
        self.size.is_some_and(|s| seq + u64::from(len) >= s)
    }

    /// The receiver got the packet starting at `seq` whole, and holds `cum_ack` bytes in order
    /// (`processAck`, lines 576-675: bookkeeping only; the PULL comes on its own).
    pub fn handle_ack(&mut self, now: Instant, seq: u64, cum_ack: u64) {
        self.heard(now, cum_ack);
        self.unanswered.remove(&seq);
        self.pull_window += 1;
        self.first_window_count -= 1;
        self.record(Feedback::Ack);
    }

    /// The packet starting at `seq` arrived trimmed: it is sent again ahead of new data, at the
    /// next PULL (`processNack`, lines 504-573). If the sender holds PULLs it had nothing to send
    /// for, the NACK's own PULL number lets it go at once, as htsim's `_last_pull < _max_pull`
    /// branch does (line 566).
    pub fn handle_nack(&mut self, now: Instant, seq: u64, cum_ack: u64, pull_no: u64) {
        self.heard(now, cum_ack);
        self.stats.nacks += 1;
        self.unanswered.remove(&seq);
        self.pull_window += 1;
        self.first_window_count -= 1;
        self.record(Feedback::Nack);
        if seq >= self.cum_ack {
            self.resend.insert(seq);
        }
        if self.last_pull < self.max_pull {
            self.max_pull = self.max_pull.max(pull_no);
        }
    }

    /// A PULL: the sender may send up to its number (`pull_packets`, lines 858-873).
    pub fn handle_pull(&mut self, now: Instant, pull_no: u64, cum_ack: u64) {
        self.heard(now, cum_ack);
        self.stats.pulls += 1;
        self.pull_window -= 1;
        self.max_pull = self.max_pull.max(pull_no);
    }

    /// A switch returned the packet starting at `seq` (return-to-sender: its header found a full
    /// header queue): it goes into the resend queue (`processRTS`, `ndp.cpp` lines 454-502). It
    /// is sent again at once only if the sender expects no PULL and at most one packet of its
    /// first window is unanswered (the receiver may not know the flow exists), or if the recent
    /// answers say this path is bad: at least one in four an ACK, so the network as a whole is
    /// not congested (`is_bad_path`, lines 415-451). Otherwise it waits for a PULL, as htsim's
    /// `SWALLOW` does (line 475): resending every returned packet at once would echo the incast
    /// at the receiver.
    pub fn handle_returned(&mut self, _now: Instant, seq: u64) {
        self.stats.returned += 1;
        self.first_window_count -= 1;
        self.unanswered.remove(&seq);
        if seq >= self.cum_ack {
            self.resend.insert(seq);
        }
        self.record(Feedback::Returned);
        if (self.pull_window == 0 && self.first_window_count <= 1) || self.is_bad_path() {
            self.stats.returned_resent_at_once += 1;
            self.timer_credit += 1;
        }
    }

    fn record(&mut self, feedback: Feedback) {
        self.history[self.history_at] = Some(feedback);
        self.history_at = (self.history_at + 1) % HISTORY;
    }

    /// Whether at least one in four of the recent answers is an ACK (`is_bad_path`, line 444:
    /// `ack_count > 0 && total/ack_count <= 3`, in whole numbers): a returned packet then says
    /// its path was congested, not the network.
    fn is_bad_path(&self) -> bool {
        let acks = self.history.iter().filter(|&&f| f == Some(Feedback::Ack)).count();
        let total = self.history.iter().filter(|f| f.is_some()).count();
        acks > 0 && total / acks <= 3
    }

    fn heard(&mut self, now: Instant, cum_ack: u64) {
        self.heard_at = now;
        if cum_ack > self.cum_ack {
            self.cum_ack = cum_ack;
            // What the receiver holds in order needs no answer and no resend.
            self.unanswered.retain(|&seq, _| seq >= cum_ack);
            self.resend.retain(|&seq| seq >= cum_ack);
        }
    }

    /// When the timer is due: the oldest unanswered packet's send time plus the RTO; with none
    /// unanswered and data left but no PULL to send it by, the RTO after the receiver was last
    /// heard from.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.is_complete() {
            return None;
        }
        if let Some(oldest) = self.unanswered.values().map(|&(_, at)| at).min() {
            return Some(oldest + self.config.rto);
        }
        let waiting = !self.resend.is_empty() || self.size.is_none_or(|s| self.next_new < s.max(1));
        let stuck = waiting && self.window_left == 0 && self.last_pull >= self.max_pull && self.timer_credit == 0;
        stuck.then_some(self.heard_at + self.config.rto)
    }

    /// Acts on the timer (a no-op before it is due): packets unanswered for an RTO are taken for
    /// lost and sent again at once, as htsim's `retransmit_packet` would (lines 1059-1139); a
    /// sender left with data and no PULL for an RTO sends one packet, whose answer brings the
    /// next PULL.
    pub fn handle_timeout(&mut self, now: Instant) {
        let Some(due) = self.poll_timeout() else { return };
        if now < due {
            return;
        }
        self.stats.timeouts += 1;
        let rto = self.config.rto;
        let lost: Vec<u64> = self.unanswered.iter().filter(|(_, &(_, at))| at + rto <= now).map(|(&seq, _)| seq).collect();
        if lost.is_empty() {
            self.timer_credit += 1;
            self.heard_at = now;
            return;
        }
        for seq in lost {
            self.unanswered.remove(&seq);
            self.resend.insert(seq);
            self.timer_credit += 1;
        }
    }

    /// Whether the receiver holds every byte (`cum_ackno >= _flow_size`, line 660).
    pub fn is_complete(&self) -> bool {
        self.size.is_some_and(|s| self.cum_ack >= s)
    }

    /// Bytes the receiver said it holds in order.
    pub fn cum_ack(&self) -> u64 {
        self.cum_ack
    }

    /// The timeout.
    pub fn rto(&self) -> Duration {
        self.config.rto
    }

    /// What the sender counted.
    pub fn stats(&self) -> NdpStats {
        self.stats
    }

    /// The packets it may still send before the next PULL (the window and the timer's).
    pub fn credit(&self) -> u64 {
        u64::from(self.window_left) + (self.max_pull - self.last_pull) + u64::from(self.timer_credit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 9000;

    fn config(initial_window: u32) -> NdpConfig {
        NdpConfig { mss: MSS, initial_window, rto: Duration::from_ms(1) }
    }

    fn at(us: u64) -> Instant {
        Instant::ZERO + Duration::from_us(us)
    }

    fn drain(s: &mut NdpSender, now: Instant) -> Vec<(u64, u32, bool)> {
        std::iter::from_fn(|| s.poll_transmit(now)).map(|p| (p.seq, p.len, p.retransmission)).collect()
    }

    #[test]
    fn start_sends_the_first_window_at_once_and_no_more() {
        let mut s = NdpSender::new(config(3), Some(10 * u64::from(MSS)), Instant::ZERO);
        assert_eq!(drain(&mut s, Instant::ZERO), [(0, MSS, false), (9000, MSS, false), (18000, MSS, false)]);
    }

    #[test]
    fn start_first_window_is_at_most_the_flow_and_the_last_packet_is_short() {
        let mut s = NdpSender::new(config(23), Some(20_000), Instant::ZERO);
        let sent: Vec<_> = std::iter::from_fn(|| s.poll_transmit(Instant::ZERO)).collect();
        assert_eq!(sent.iter().map(|p| (p.seq, p.len, p.last)).collect::<Vec<_>>(), [(0, 9000, false), (9000, 9000, false), (18000, 2000, true)]);
    }

    #[test]
    fn pull_sends_one_packet_each_and_cumulative_numbers_cover_a_lost_pull() {
        let mut s = NdpSender::new(config(1), Some(10 * u64::from(MSS)), Instant::ZERO);
        assert_eq!(drain(&mut s, Instant::ZERO).len(), 1);
        s.handle_pull(at(10), 1, 0);
        assert_eq!(drain(&mut s, at(10)), [(9000, MSS, false)]);
        // PULL 2 was lost; PULL 3 lets two packets go.
        s.handle_pull(at(20), 3, 0);
        assert_eq!(drain(&mut s, at(20)), [(18000, MSS, false), (27000, MSS, false)]);
        // A late PULL 2 pulls nothing more.
        s.handle_pull(at(21), 2, 0);
        assert!(drain(&mut s, at(21)).is_empty());
    }

    #[test]
    fn nack_queues_a_resend_for_the_next_pull_ahead_of_new_data() {
        let mut s = NdpSender::new(config(2), Some(10 * u64::from(MSS)), Instant::ZERO);
        drain(&mut s, Instant::ZERO);
        s.handle_nack(at(10), 0, 0, 1);
        assert!(drain(&mut s, at(10)).is_empty(), "a NACK alone sends nothing");
        s.handle_pull(at(11), 1, 0);
        assert_eq!(drain(&mut s, at(11)), [(0, MSS, true)]);
        assert_eq!(s.stats().retransmitted_bytes, u64::from(MSS));
    }

    #[test]
    fn nack_with_an_unused_pull_in_hand_resends_at_once() {
        // Two packets, both sent in the first window; the PULL for the first finds nothing new.
        let mut s = NdpSender::new(config(2), Some(2 * u64::from(MSS)), Instant::ZERO);
        drain(&mut s, Instant::ZERO);
        s.handle_ack(at(10), 0, 9000);
        s.handle_pull(at(10), 1, 9000);
        assert!(drain(&mut s, at(10)).is_empty());
        assert_eq!(s.credit(), 1, "the PULL is kept");
        s.handle_nack(at(11), 9000, 9000, 2);
        assert_eq!(drain(&mut s, at(11)), [(9000, MSS, true)]);
    }

    #[test]
    fn ack_covers_what_it_says_is_held_and_completes_the_flow() {
        let mut s = NdpSender::new(config(2), Some(2 * u64::from(MSS)), Instant::ZERO);
        drain(&mut s, Instant::ZERO);
        s.handle_ack(at(10), 9000, 0);
        assert!(!s.is_complete());
        s.handle_ack(at(11), 0, 18000);
        assert!(s.is_complete());
        assert_eq!(s.poll_timeout(), None);
    }

    #[test]
    fn timeout_resends_what_went_unanswered_and_only_that() {
        let mut s = NdpSender::new(config(3), Some(10 * u64::from(MSS)), Instant::ZERO);
        drain(&mut s, Instant::ZERO);
        s.handle_ack(at(10), 0, 9000);
        s.handle_nack(at(10), 18000, 9000, 2);
        // 9000 was lost outright: no answer within the RTO.
        assert_eq!(s.poll_timeout(), Some(at(1000)));
        s.handle_timeout(at(999));
        assert!(drain(&mut s, at(999)).is_empty(), "not due yet");
        s.handle_timeout(at(1000));
        assert_eq!(drain(&mut s, at(1000)), [(9000, MSS, true)], "the lost packet, not the NACKed one");
        assert_eq!(s.stats().timeouts, 1);
    }

    #[test]
    fn timeout_with_nothing_unanswered_sends_one_packet_when_no_pull_comes() {
        let mut s = NdpSender::new(config(1), Some(3 * u64::from(MSS)), Instant::ZERO);
        drain(&mut s, Instant::ZERO);
        s.handle_ack(at(10), 0, 9000);
        // The PULL for that packet was lost.
        assert_eq!(s.poll_timeout(), Some(at(1010)));
        s.handle_timeout(at(1010));
        assert_eq!(drain(&mut s, at(1010)), [(9000, MSS, false)]);
    }

    #[test]
    fn returned_packet_waits_for_a_pull_while_pulls_are_due() {
        let mut s = NdpSender::new(config(3), Some(10 * u64::from(MSS)), Instant::ZERO);
        drain(&mut s, Instant::ZERO);
        s.handle_nack(at(10), 0, 0, 1);
        // A NACK was heard, so a PULL is due, and no recent ACK says the path is to blame: the
        // returned packet waits for a PULL (htsim's SWALLOW), behind the NACKed one.
        s.handle_returned(at(11), 9000);
        assert!(drain(&mut s, at(11)).is_empty());
        s.handle_pull(at(12), 1, 0);
        assert_eq!(drain(&mut s, at(12)), [(0, MSS, true)]);
        s.handle_pull(at(13), 2, 0);
        assert_eq!(drain(&mut s, at(13)), [(9000, MSS, true)], "the returned packet before new data");
        assert_eq!((s.stats().returned, s.stats().returned_resent_at_once), (1, 0));
    }

    #[test]
    fn returned_packet_goes_at_once_when_the_receiver_may_not_know_of_the_flow() {
        let mut s = NdpSender::new(config(3), Some(10 * u64::from(MSS)), Instant::ZERO);
        drain(&mut s, Instant::ZERO);
        // Nothing heard from the receiver: no PULL is due. With two of the three first-window
        // packets unanswered the first return waits; with one, the second goes at once.
        s.handle_returned(at(5), 0);
        assert!(drain(&mut s, at(5)).is_empty());
        s.handle_returned(at(6), 9000);
        assert_eq!(drain(&mut s, at(6)), [(0, MSS, true)], "the lowest waiting resend goes first");
        assert_eq!(s.stats().returned_resent_at_once, 1);
    }

    #[test]
    fn returned_packet_goes_at_once_when_recent_answers_say_its_path_is_bad() {
        let mut s = NdpSender::new(config(4), Some(10 * u64::from(MSS)), Instant::ZERO);
        drain(&mut s, Instant::ZERO);
        s.handle_ack(at(10), 0, 9000);
        s.handle_ack(at(10), 9000, 18000);
        // Two PULLs are due, but two of the last three answers are ACKs: a bad path.
        s.handle_returned(at(11), 18000);
        assert_eq!(drain(&mut s, at(11)), [(18000, MSS, true)]);
    }
}
