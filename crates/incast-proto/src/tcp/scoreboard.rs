//! The SACK scoreboard of RFC 6675: what the receiver reported holding above the cumulative
//! ACK, which unSACKed bytes are lost (IsLost), how much is in the network (SetPipe), and what
//! to send next in loss recovery (NextSeg rules 1, 3 and 4; rule 2, new data, is the sender's).
//!
//! Bytes, not segments: the SACKed ranges are kept merged in a sorted `Vec` whose capacity is
//! reused for the life of the connection, so an ACK allocates nothing once a flow has seen its
//! largest number of holes. IsLost is monotone in the sequence number (a lower byte has at least
//! as much SACKed data above it), so "lost" is one boundary: every unSACKed byte below
//! [`Scoreboard::lost_below`] is lost, none above. HighRxt is one pointer, since NextSeg
//! retransmits the lost region in order.
//!
//! ```text
//!  snd_una        lost_below             highest SACK         high_sent
//!     |  lost  [S]  lost  [SSS]  in flight  [SS]  in flight  [S]  in flight |
//!     |<- retransmitted ->| high_rxt
//! ```

use super::ranges::merge;
use super::SackBlocks;

/// What NextSeg chose to send from the scoreboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resend {
    /// Rule 1 or 3: a lost (or, in recovery, merely unSACKed) segment above HighRxt.
    Hole {
        /// First byte.
        seq: u64,
        /// Bytes, at most one MSS and never into a SACKed range.
        len: u64,
    },
    /// Rule 4: the rescue retransmission, ending at the highest unSACKed byte.
    Rescue {
        /// First byte.
        seq: u64,
        /// Bytes.
        len: u64,
    },
}

/// The SACK scoreboard of one sender.
#[derive(Clone, Debug)]
pub(crate) struct Scoreboard {
    /// SACKed ranges above snd_una: sorted, disjoint, non-adjacent `[start, end)`.
    sacked: Vec<(u64, u64)>,
    /// Every unSACKed byte below this is lost by the SACK rule (IsLost of RFC 6675 Section 4).
    sack_lost_below: u64,
    /// Every unSACKed byte below this is lost because a timeout said so (RFC 6675 Section 5.1:
    /// after an RTO the sender retransmits what was not SACKed), or because recovery began
    /// with the head presumed lost (step 4.3).
    marked_lost_below: u64,
    /// HighRxt, exclusive: bytes of the lost region below it were retransmitted in this
    /// recovery or since the last timeout.
    high_rxt: u64,
    /// RescueRxt: no rescue retransmission until snd_una passes it; `None` is undefined.
    rescue_rxt: Option<u64>,
    /// DupThresh.
    dupthresh: u64,
    /// SMSS.
    mss: u64,
    /// ns-3.44's `TcpTxBuffer` (`TcpConfig::ns3_bookkeeping`): the ranges resent since the
    /// last timeout and not yet cumulatively acknowledged: sorted, disjoint `[start, end)`;
    /// `None` for RFC 6675's rules.
    ns3_resent: Option<Vec<(u64, u64)>>,
}

impl Scoreboard {
    /// An empty scoreboard for segments of `mss` bytes and a loss threshold of `dupthresh`.
    pub(crate) fn new(mss: u64, dupthresh: u32) -> Self {
        Scoreboard {
            sacked: Vec::new(),
            sack_lost_below: 0,
            marked_lost_below: 0,
            high_rxt: 0,
            rescue_rxt: None,
            dupthresh: u64::from(dupthresh.max(1)),
            mss: mss.max(1),
            ns3_resent: None,
        }
    }

    /// The scoreboard of ns-3.44's `TcpTxBuffer` (`TcpConfig::ns3_bookkeeping`), which departs
    /// from RFC 6675 twice: a resent segment stays in the pipe when it is SACKed, until the
    /// cumulative ACK passes it (`BytesInFlight` is sent - SACKed - lost + retransmitted, and
    /// `Update` clears an item's lost flag but not its `m_retrans`, tcp-tx-buffer.cc lines 812
    /// and 1065), and NextSeg's rule 1 resends a lost segment only below the highest SACKed
    /// one, after a timeout as well (line 977).
    pub(crate) fn with_ns3_bookkeeping(mut self) -> Self {
        self.ns3_resent = Some(Vec::new());
        self
    }

    /// SACKed ranges, for tests and invariants.
    #[cfg(test)]
    pub(crate) fn sacked(&self) -> &[(u64, u64)] {
        &self.sacked
    }

    /// Whether nothing is SACKed and nothing is lost: pipe is plain flight then.
    fn is_clean(&self, snd_una: u64) -> bool {
        self.sacked.is_empty() && self.lost_below() <= snd_una && self.high_rxt <= snd_una
    }

    /// Records the blocks of one ACK (RFC 6675 Update ()). Blocks are clipped to
    /// `[snd_una, high_sent)`; returns the bytes SACKed for the first time.
    pub(crate) fn update(&mut self, blocks: &SackBlocks, snd_una: u64, high_sent: u64) -> u64 {
        let mut newly = 0;
        for &(start, end) in blocks.as_slice() {
            let (start, end) = (start.max(snd_una), end.min(high_sent));
            if start < end {
                newly += self.insert(start, end);
            }
        }
        if newly > 0 {
            self.sack_lost_below = self.sack_loss_boundary(snd_una);
        }
        newly
    }

    /// Merges `[start, end)` into the SACKed ranges; returns the bytes it added.
    fn insert(&mut self, start: u64, end: u64) -> u64 {
        let ((s, e), held) = merge(&mut self.sacked, start, end);
        (e - s) - held
    }

    /// The cumulative ACK moved to `snd_una`: forgets what lies below it. Returns the bytes
    /// that had been SACKed below it (delivered earlier, not by this ACK).
    pub(crate) fn advance(&mut self, snd_una: u64) -> u64 {
        let mut was_sacked = 0;
        let below = self.sacked.partition_point(|&(_, e)| e <= snd_una);
        for &(s, e) in &self.sacked[..below] {
            was_sacked += e - s;
        }
        self.sacked.drain(..below);
        if let Some(first) = self.sacked.first_mut() {
            if first.0 < snd_una {
                was_sacked += snd_una - first.0;
                first.0 = snd_una;
            }
        }
        self.high_rxt = self.high_rxt.max(snd_una);
        self.sack_lost_below = self.sack_loss_boundary(snd_una);
        if let Some(resent) = self.ns3_resent.as_mut() {
            resent.retain_mut(|r| {
                r.0 = r.0.max(snd_una);
                r.0 < r.1
            });
        }
        was_sacked
    }

    /// The highest byte IsLost can call lost from SACK information alone: the start of the
    /// highest SACKed range such that the ranges from it up hold DupThresh segments or more
    /// than (DupThresh - 1) x SMSS bytes (RFC 6675 Section 4, IsLost); `snd_una` if none.
    fn sack_loss_boundary(&self, snd_una: u64) -> u64 {
        let (mut bytes, mut segments) = (0, 0);
        for &(s, e) in self.sacked.iter().rev() {
            bytes += e - s;
            segments += (e - s).div_ceil(self.mss);
            if segments >= self.dupthresh || bytes > (self.dupthresh - 1) * self.mss {
                return s.max(snd_una);
            }
        }
        snd_una
    }

    /// Every unSACKed byte below this is lost.
    pub(crate) fn lost_below(&self) -> u64 {
        self.sack_lost_below.max(self.marked_lost_below)
    }

    /// IsLost (seq) of RFC 6675 Section 4, or marked lost by a timeout.
    pub(crate) fn is_lost(&self, seq: u64) -> bool {
        seq < self.lost_below() && !self.is_sacked(seq)
    }

    /// Whether `seq` was SACKed.
    pub(crate) fn is_sacked(&self, seq: u64) -> bool {
        let i = self.sacked.partition_point(|&(_, e)| e <= seq);
        self.sacked.get(i).is_some_and(|&(s, _)| s <= seq)
    }

    /// SACKed bytes in `[a, b)`.
    pub(crate) fn sacked_in(&self, a: u64, b: u64) -> u64 {
        let mut n = 0;
        for &(s, e) in &self.sacked[self.sacked.partition_point(|&(_, e)| e <= a)..] {
            if s >= b {
                break;
            }
            n += e.min(b) - s.max(a);
        }
        n
    }

    /// UnSACKed bytes in `[a, b)` (0 when empty).
    fn unsacked_in(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            0
        } else {
            (b - a) - self.sacked_in(a, b)
        }
    }

    /// SetPipe () of RFC 6675 Section 4: each unSACKed byte between snd_una and `high_sent`
    /// counts once if it is not lost, and once more if it lies below HighRxt (it was
    /// retransmitted).
    pub(crate) fn pipe(&self, snd_una: u64, high_sent: u64) -> u64 {
        if self.is_clean(snd_una) {
            return high_sent.saturating_sub(snd_una);
        }
        let lost_end = self.lost_below().clamp(snd_una, high_sent);
        let not_lost = self.unsacked_in(lost_end, high_sent);
        let retransmitted = self.unsacked_in(snd_una, self.high_rxt.min(high_sent));
        not_lost + retransmitted + self.ns3_sacked_resent(high_sent)
    }

    /// With ns-3's bookkeeping, the resent bytes that have since been SACKed: ns-3 counts
    /// them in the pipe still.
    fn ns3_sacked_resent(&self, high_sent: u64) -> u64 {
        let Some(resent) = self.ns3_resent.as_ref() else { return 0 };
        resent
            .iter()
            .map(|&(start, end)| {
                let end = end.min(high_sent);
                if start < end { (end - start) - self.unsacked_in(start, end) } else { 0 }
            })
            .sum()
    }

    /// Step 4 of RFC 6675 Section 5, entering loss recovery at `snd_una`: HighRxt restarts
    /// there and the first segment is presumed lost whatever IsLost says (step 4.3), so it is
    /// the first to be resent. `first_end` is one past that segment.
    pub(crate) fn enter_recovery(&mut self, snd_una: u64, first_end: u64) {
        self.high_rxt = snd_una;
        self.marked_lost_below = self.marked_lost_below.max(first_end);
        // Step 4.3: no rescue before the first retransmission is acknowledged.
        self.rescue_rxt = Some(first_end);
    }

    /// Whether the byte at `seq` was resent in this recovery (it lies below HighRxt).
    pub(crate) fn was_resent(&self, seq: u64) -> bool {
        seq < self.high_rxt
    }

    /// Presumes every unSACKed byte below `end` lost (a partial ACK's new head).
    pub(crate) fn presume_lost(&mut self, end: u64) {
        self.marked_lost_below = self.marked_lost_below.max(end);
    }

    /// A retransmission timeout (RFC 6675 Section 5.1): every byte sent and not SACKed is lost
    /// and is resent from `snd_una` on; the SACK information is kept (as Linux and ns-3 do).
    pub(crate) fn on_timeout(&mut self, snd_una: u64, high_sent: u64) {
        self.marked_lost_below = high_sent;
        self.high_rxt = snd_una;
        self.rescue_rxt = None;
        if let Some(resent) = self.ns3_resent.as_mut() {
            // `SetSentListLost` clears every item's `m_retrans`.
            resent.clear();
        }
    }

    /// NextSeg () rule 1: the first lost, unSACKed segment at or above HighRxt, of at most one
    /// MSS and not into a SACKed range or past `high_sent`.
    pub(crate) fn next_lost(&self, snd_una: u64, high_sent: u64) -> Option<Resend> {
        let from = self.high_rxt.max(snd_una);
        let seq = self.first_unsacked_at(from);
        let mut below = self.lost_below().min(high_sent);
        if self.ns3_resent.is_some() {
            if let Some(&(_, highest_sack)) = self.sacked.last() {
                below = below.min(highest_sack);
            }
        }
        (seq < below).then(|| Resend::Hole { seq, len: self.hole_len(seq, high_sent) })
    }

    /// NextSeg () rules 3 and 4, in loss recovery once rules 1 and 2 found nothing: an
    /// unSACKed segment above HighRxt and below the highest SACKed byte (rule 3), else, at
    /// most once per recovery and with `rescue` enabled, the rescue retransmission of the
    /// highest unSACKed segment (rule 4). Sending it is [`on_resent`](Self::on_resent)'s
    /// business.
    pub(crate) fn next_in_recovery(&self, snd_una: u64, high_sent: u64, rescue: bool) -> Option<Resend> {
        // ns-3 bounds rules 1 and 3 by the highest SACK only while it holds SACK information
        // (`m_sackSeen`, reset when the cumulative ACK passes every SACKed byte,
        // tcp-tx-buffer.cc lines 756 to 760): with none, rule 3 reaches up to HighData.
        let unbounded = if self.ns3_resent.is_some() { high_sent } else { snd_una };
        let highest_sack = self.sacked.last().map_or(unbounded, |&(_, e)| e);
        let seq = self.first_unsacked_at(self.high_rxt.max(snd_una));
        if seq < highest_sack.min(high_sent) {
            return Some(Resend::Hole { seq, len: self.hole_len(seq, high_sent) });
        }
        if !rescue || self.rescue_rxt.is_some_and(|r| snd_una <= r) {
            return None;
        }
        // The highest unSACKed byte below high_sent, and the unSACKed run that ends there.
        let (run_start, run_end) = match self.sacked.last() {
            Some(&(s, e)) if e >= high_sent => {
                let below = self.sacked.len().checked_sub(2).map_or(snd_una, |i| self.sacked[i].1);
                (below.max(snd_una), s)
            }
            Some(&(_, e)) => (e, high_sent),
            None => (snd_una, high_sent),
        };
        // Nothing unSACKed, or the highest unSACKed byte was resent already (by rule 1 or 3, or
        // by the partial-ACK rule): a rescue would only duplicate it.
        if run_start >= run_end || run_end <= self.high_rxt {
            return None;
        }
        let len = self.mss.min(run_end - run_start);
        Some(Resend::Rescue { seq: run_end - len, len })
    }

    /// A segment NextSeg chose was sent: a hole moves HighRxt past it (rules 1 and 3); a
    /// rescue leaves HighRxt alone and sets RescueRxt to `recovery_point`, so there is one per
    /// recovery (rule 4).
    pub(crate) fn on_resent(&mut self, resend: Resend, recovery_point: u64) {
        match resend {
            Resend::Hole { seq, len } => {
                self.high_rxt = self.high_rxt.max(seq + len);
                if let Some(resent) = self.ns3_resent.as_mut() {
                    merge(resent, seq, seq + len);
                }
            }
            Resend::Rescue { .. } => self.rescue_rxt = Some(recovery_point),
        }
    }

    /// The first unSACKed byte at or above `from` (ranges are never adjacent, so the end of a
    /// SACKed range is unSACKed).
    fn first_unsacked_at(&self, from: u64) -> u64 {
        let i = self.sacked.partition_point(|&(_, e)| e <= from);
        match self.sacked.get(i) {
            Some(&(s, e)) if s <= from => e,
            _ => from,
        }
    }

    /// Length of a resent segment at `seq`: one MSS, cut at the next SACKed range or
    /// `high_sent`.
    fn hole_len(&self, seq: u64, high_sent: u64) -> u64 {
        let i = self.sacked.partition_point(|&(s, _)| s <= seq);
        let next_sacked = self.sacked.get(i).map_or(high_sent, |&(s, _)| s);
        self.mss.min(next_sacked.min(high_sent) - seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A scoreboard with segment `n` = bytes [n x 1000, (n + 1) x 1000).
    fn board() -> Scoreboard {
        Scoreboard::new(MSS, 3)
    }

    fn sack(segments: &[(u64, u64)]) -> SackBlocks {
        let blocks: Vec<_> = segments.iter().map(|&(a, b)| (a * MSS, b * MSS)).collect();
        SackBlocks::from_slice(&blocks)
    }

    #[test]
    fn update_merges_blocks_and_counts_only_new_bytes() {
        let mut b = board();
        assert_eq!(b.update(&sack(&[(2, 3)]), 0, 10 * MSS), MSS);
        assert_eq!(b.update(&sack(&[(3, 4), (2, 3)]), 0, 10 * MSS), MSS);
        assert_eq!(b.sacked(), &[(2 * MSS, 4 * MSS)]);
        assert_eq!(b.update(&sack(&[(6, 7), (2, 4)]), 0, 10 * MSS), MSS);
        // A block bridging two ranges adds only the gap.
        assert_eq!(b.update(&sack(&[(1, 8)]), 0, 10 * MSS), 4 * MSS);
        assert_eq!(b.sacked(), &[(MSS, 8 * MSS)]);
        // Blocks beyond what was sent or below snd_una are clipped.
        assert_eq!(b.update(&sack(&[(9, 12)]), 0, 10 * MSS), MSS);
        assert_eq!(b.update(&sack(&[(0, 1)]), MSS, 10 * MSS), 0);
    }

    #[test]
    fn is_lost_needs_three_segments_sacked_above() {
        let mut b = board();
        b.update(&sack(&[(2, 3), (4, 5)]), 0, 10 * MSS);
        assert!(!b.is_lost(0));
        b.update(&sack(&[(6, 7)]), 0, 10 * MSS);
        // Three SACKed segments above 0 and 1; two above 3, one above 5.
        assert!(b.is_lost(0) && b.is_lost(MSS));
        assert!(!b.is_lost(3 * MSS) && !b.is_lost(5 * MSS) && !b.is_lost(2 * MSS));
        assert_eq!(b.lost_below(), 2 * MSS);
        // More than two segments' worth of bytes in one range is enough too.
        let mut b = board();
        b.update(&SackBlocks::from_slice(&[(5 * MSS, 7 * MSS + 1)]), 0, 10 * MSS);
        assert!(b.is_lost(4 * MSS));
    }

    #[test]
    fn pipe_counts_in_flight_lost_and_retransmitted_bytes() {
        let mut b = board();
        // 10 segments out, 1, 3, 5 and 7 SACKed: three SACKed segments lie above 2 but only
        // two above 4, so the boundary is segment 3 and 0 and 2 are lost.
        b.update(&sack(&[(1, 2), (3, 4), (5, 6), (7, 8)]), 0, 10 * MSS);
        assert_eq!(b.lost_below(), 3 * MSS);
        // Not lost: 4, 6, 8, 9; lost: 0, 2.
        assert_eq!(b.pipe(0, 10 * MSS), 4 * MSS);
        b.enter_recovery(0, MSS);
        let first = b.next_lost(0, 10 * MSS).unwrap();
        assert_eq!(first, Resend::Hole { seq: 0, len: MSS });
        b.on_resent(first, 10 * MSS);
        assert_eq!(b.pipe(0, 10 * MSS), 5 * MSS);
        let second = b.next_lost(0, 10 * MSS).unwrap();
        assert_eq!(second, Resend::Hole { seq: 2 * MSS, len: MSS });
        b.on_resent(second, 10 * MSS);
        assert_eq!(b.next_lost(0, 10 * MSS), None);
        assert_eq!(b.pipe(0, 10 * MSS), 6 * MSS);
    }

    #[test]
    fn advance_forgets_sacked_below_and_reports_them() {
        let mut b = board();
        b.update(&sack(&[(1, 3), (5, 6)]), 0, 10 * MSS);
        assert_eq!(b.advance(2 * MSS), MSS);
        assert_eq!(b.sacked(), &[(2 * MSS, 3 * MSS), (5 * MSS, 6 * MSS)]);
        assert_eq!(b.advance(3 * MSS), MSS);
        assert_eq!(b.advance(6 * MSS), MSS);
        assert!(b.sacked().is_empty());
        assert_eq!(b.pipe(6 * MSS, 10 * MSS), 4 * MSS);
    }

    #[test]
    fn timeout_marks_everything_unsacked_lost_and_resends_around_sacked() {
        let mut b = board();
        b.update(&sack(&[(2, 4)]), 0, 6 * MSS);
        b.on_timeout(0, 6 * MSS);
        assert_eq!(b.pipe(0, 6 * MSS), 0);
        let mut resent = Vec::new();
        while let Some(r) = b.next_lost(0, 6 * MSS) {
            b.on_resent(r, 6 * MSS);
            resent.push(r);
        }
        assert_eq!(
            resent,
            vec![
                Resend::Hole { seq: 0, len: MSS },
                Resend::Hole { seq: MSS, len: MSS },
                Resend::Hole { seq: 4 * MSS, len: MSS },
                Resend::Hole { seq: 5 * MSS, len: MSS },
            ]
        );
        assert_eq!(b.pipe(0, 6 * MSS), 4 * MSS);
    }

    #[test]
    fn rule_three_then_one_rescue_per_recovery() {
        let mut b = board();
        // 0 lost; 1 SACKed; 2 in flight; 3 and 4 unsent beyond? No: 5 segments sent, 1 SACKed.
        b.update(&sack(&[(1, 2)]), 0, 5 * MSS);
        b.enter_recovery(0, MSS);
        let first = b.next_lost(0, 5 * MSS).unwrap();
        b.on_resent(first, 10 * MSS);
        assert_eq!(b.next_lost(0, 5 * MSS), None);
        // No rescue while the first retransmission is unacknowledged; rule 3 finds nothing
        // below the highest SACK (2 x MSS) above HighRxt (MSS) that is unSACKed.
        assert_eq!(b.next_in_recovery(0, 5 * MSS, true), None);
        b.advance(2 * MSS);
        // Rule 4: the highest unSACKed segment, once.
        let rescue = b.next_in_recovery(2 * MSS, 5 * MSS, true).unwrap();
        assert_eq!(rescue, Resend::Rescue { seq: 4 * MSS, len: MSS });
        b.on_resent(rescue, 5 * MSS);
        assert_eq!(b.next_in_recovery(2 * MSS, 5 * MSS, true), None);
        // Disabled, nothing.
        let mut c = board();
        c.update(&sack(&[(1, 2)]), 0, 5 * MSS);
        c.advance(2 * MSS);
        assert_eq!(c.next_in_recovery(2 * MSS, 5 * MSS, false), None);
    }

    #[test]
    fn rule_three_resends_unsacked_below_highest_sack() {
        let mut b = board();
        // Segments 0..8 out; 3 and 4 SACKed: nothing is lost yet (two segments above 0).
        b.update(&sack(&[(3, 5)]), 0, 8 * MSS);
        assert_eq!(b.lost_below(), 0);
        b.enter_recovery(0, MSS);
        let r = b.next_lost(0, 8 * MSS).unwrap();
        assert_eq!(r, Resend::Hole { seq: 0, len: MSS });
        b.on_resent(r, 8 * MSS);
        assert_eq!(b.next_in_recovery(0, 8 * MSS, false), Some(Resend::Hole { seq: MSS, len: MSS }));
    }

    #[test]
    fn hole_len_stops_at_sacked_range_and_high_sent() {
        let mut b = board();
        b.update(&SackBlocks::from_slice(&[(1_500, 2_000)]), 0, 2_300);
        b.on_timeout(0, 2_300);
        assert_eq!(b.next_lost(0, 2_300), Some(Resend::Hole { seq: 0, len: MSS }));
        b.on_resent(Resend::Hole { seq: 0, len: MSS }, 2_300);
        assert_eq!(b.next_lost(0, 2_300), Some(Resend::Hole { seq: 1_000, len: 500 }));
        b.on_resent(Resend::Hole { seq: 1_000, len: 500 }, 2_300);
        assert_eq!(b.next_lost(0, 2_300), Some(Resend::Hole { seq: 2_000, len: 300 }));
    }
}
