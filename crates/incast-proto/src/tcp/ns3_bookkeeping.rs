//! ns-3.44's per-ACK bookkeeping on the sender side (`TcpConfig::ns3_bookkeeping`): what
//! `TcpSocketBase::ReceivedAck` and `ProcessAck` hand the congestion control for each ACK
//! ([`Ns3Ack`]), and the socket state they keep for it: the ECN state `TcpDctcp` reads, the
//! `m_nextTxSequence` that ends its observation windows, the carry of bytes that are not yet
//! a whole segment, the CA_LOSS state after a timeout, and whether a partial ACK of this
//! recovery already restarted the timer.
//!
//! Line numbers are those of ns-3.44's src/internet/model/tcp-socket-base.cc.

use crate::cc::Ns3Ack;

/// The sender's ECN state as ns-3 keeps it (`TcpSocketState::EcnState_t`, the sender's part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EcnState {
    Idle,
    /// An ACK of new data carried an ECN-Echo (`ECN_ECE_RCVD`): DCTCP counts what is
    /// acknowledged as marked.
    EceReceived,
    /// New data went out with CWR since (`ECN_CWR_SENT`).
    CwrSent,
}

/// What the sender knows about one ACK when it hands it to the congestion control.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AckFacts {
    /// The cumulative ACK.
    pub(crate) ack: u64,
    /// snd_una before it.
    pub(crate) prior_una: u64,
    /// The highest byte sent.
    pub(crate) high_sent: u64,
    /// Bytes it newly reports received, cumulatively or by SACK.
    pub(crate) delivered: u64,
    /// The recovery point of the last loss event or timeout.
    pub(crate) recover: u64,
    /// It SACKed new data.
    pub(crate) sack_updated: bool,
    /// The sender is in loss recovery after this ACK (entered before it, or by it).
    pub(crate) in_recovery: bool,
    /// This ACK starts loss recovery.
    pub(crate) starts_recovery: bool,
    /// This ACK ends loss recovery.
    pub(crate) ends_recovery: bool,
    /// It is a partial ACK in recovery that acknowledged a resent segment.
    pub(crate) acked_resent: bool,
}

/// ns-3's bookkeeping of one sender.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ns3Bookkeeping {
    ecn: EcnState,
    /// `m_ecnEchoSeq`: the highest ACK that carried a valid ECN-Echo.
    ecn_echo_seq: u64,
    /// `m_ecnCWRSeq`: where the last CWR flag went out.
    ecn_cwr_seq: u64,
    /// `m_nextTxSequence`: one past the last segment sent, a resend included, or the
    /// cumulative ACK if it is higher.
    next_tx: u64,
    /// `m_bytesAckedNotProcessed`: delivered bytes short of a whole segment.
    bytes_not_counted: u64,
    /// CA_LOSS: after a timeout, until the ACK reaches the recovery point.
    in_loss: bool,
    /// A partial ACK of the current recovery restarted the timer (`!m_isFirstPartialAck`).
    partial_ack_seen: bool,
    /// A partial ACK asked for `DoRetransmit`: the next segment goes out whatever the window.
    partial_ack_retransmit: bool,
}

impl Ns3Bookkeeping {
    pub(crate) fn new() -> Self {
        Ns3Bookkeeping {
            ecn: EcnState::Idle,
            ecn_echo_seq: 0,
            ecn_cwr_seq: 0,
            next_tx: 0,
            bytes_not_counted: 0,
            in_loss: false,
            partial_ack_seen: false,
            partial_ack_retransmit: false,
        }
    }

    /// `ReceivedAck`'s ECN-Echo handling (lines 1910 to 1929), before the ACK is processed:
    /// an ECN-Echo on an ACK of new data above the last one sets ECE-received; any ACK
    /// without one clears it.
    pub(crate) fn on_ack_flags(&mut self, ack: u64, ece: bool, prior_una: u64) {
        if ack > prior_una && ece {
            if self.ecn_echo_seq < ack {
                self.ecn_echo_seq = ack;
                self.ecn = EcnState::EceReceived;
            }
        } else if self.ecn == EcnState::EceReceived && !ece {
            self.ecn = EcnState::Idle;
        }
    }

    /// What `ProcessAck` hands the congestion control for the ACK `a`, in whole segments of
    /// `mss` bytes: the delivered bytes with a carry (lines 2043 to 2054); one for an ACK
    /// that does not advance snd_una (line 2038) and for a partial ACK in recovery (line
    /// 2108); the segments above the old head on leaving recovery (line 2208) and above the
    /// recovery point on leaving the loss state (line 2226).
    pub(crate) fn count(&mut self, a: &AckFacts, mss: u64) -> Ns3Ack {
        let (mut segments, mut advanced_segments) = (0, 0);
        // `PktsAcked` reads `m_nextTxSequence` before `NewAck` moves it up to the ACK.
        let next_tx = self.next_tx;
        if a.ack > a.prior_una {
            self.next_tx = self.next_tx.max(a.ack);
            self.bytes_not_counted += a.delivered % mss;
            advanced_segments = a.delivered / mss;
            if self.bytes_not_counted >= mss {
                advanced_segments += 1;
                self.bytes_not_counted -= mss;
            }
            let leaves_loss = self.in_loss && a.ack >= a.recover;
            segments = if a.ends_recovery {
                (a.ack - a.prior_una) / mss
            } else if a.in_recovery {
                1
            } else if leaves_loss {
                (a.ack - a.recover) / mss
            } else {
                advanced_segments
            };
            if leaves_loss {
                self.in_loss = false;
            }
        } else if a.ack < a.high_sent {
            segments = 1;
        }
        if a.ends_recovery {
            self.partial_ack_seen = false;
        }
        Ns3Ack {
            segments,
            advanced_segments,
            sack_updated: a.sack_updated,
            starts_recovery: a.starts_recovery,
            acked_resent: a.acked_resent,
            ece_received: self.ecn == EcnState::EceReceived,
            next_tx,
        }
    }

    /// A partial ACK in recovery restarts the retransmission timer only if it is the first of
    /// this recovery (`NewAck(ackNumber, m_isFirstPartialAck)`, line 2109). Call once per
    /// partial ACK; returns whether this one restarts it.
    pub(crate) fn partial_ack_restarts_timer(&mut self) -> bool {
        !std::mem::replace(&mut self.partial_ack_seen, true)
    }

    /// A partial ACK in recovery found the head not resent yet: `DoRetransmit` sends the next
    /// segment whatever the window (line 2099).
    pub(crate) fn retransmit_on_partial_ack(&mut self) {
        self.partial_ack_retransmit = true;
    }

    /// Whether the next segment is `DoRetransmit`'s; clears it.
    pub(crate) fn take_partial_ack_retransmit(&mut self) -> bool {
        std::mem::take(&mut self.partial_ack_retransmit)
    }

    /// A segment of `len` bytes at `seq` went out: `m_nextTxSequence` follows it, and new
    /// data after an ECN-Echo carries CWR (`SendDataPacket`, lines 3233 to 3240).
    pub(crate) fn on_sent(&mut self, seq: u64, len: u64, retransmission: bool) {
        if len == 0 {
            return;
        }
        self.next_tx = seq + len;
        if !retransmission && self.ecn == EcnState::EceReceived && self.ecn_echo_seq > self.ecn_cwr_seq {
            self.ecn = EcnState::CwrSent;
            self.ecn_cwr_seq = seq;
        }
    }

    /// The retransmission timer expired: the loss state until the recovery point is
    /// acknowledged.
    pub(crate) fn on_timeout(&mut self) {
        self.in_loss = true;
        self.partial_ack_seen = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn facts(ack: u64, prior_una: u64, delivered: u64) -> AckFacts {
        AckFacts {
            ack,
            prior_una,
            high_sent: 20 * MSS,
            delivered,
            recover: 0,
            sack_updated: false,
            in_recovery: false,
            starts_recovery: false,
            ends_recovery: false,
            acked_resent: false,
        }
    }

    /// Delivered bytes count in whole segments, the remainder carried to the next ACK; a
    /// duplicate counts one; a cumulative ACK over SACKed data counts only what it newly
    /// delivered.
    #[test]
    fn segments_carry_bytes_and_duplicates_count_one() {
        let mut b = Ns3Bookkeeping::new();
        assert_eq!(b.count(&facts(1_500, 0, 1_500), MSS).segments, 1);
        assert_eq!(b.count(&facts(2_000, 1_500, 500), MSS).segments, 1);
        assert_eq!(b.count(&facts(2_000, 2_000, 1_000), MSS).segments, 1);
        assert_eq!(b.count(&facts(9_000, 2_000, 1_000), MSS).segments, 1);
        assert_eq!(b.count(&facts(20 * MSS, 20 * MSS, 0), MSS).segments, 0);
    }

    /// Recovery: one per partial ACK, the whole advance on the ACK that ends it; the loss
    /// state: the segments above the recovery point on the ACK that ends it.
    #[test]
    fn leaving_recovery_or_loss_counts_from_the_old_head_or_the_recovery_point() {
        let mut b = Ns3Bookkeeping::new();
        let partial = AckFacts { in_recovery: true, ..facts(3 * MSS, MSS, MSS) };
        assert_eq!(b.count(&partial, MSS).segments, 1);
        let exit = AckFacts { in_recovery: true, ends_recovery: true, ..facts(9 * MSS, 3 * MSS, MSS) };
        assert_eq!(b.count(&exit, MSS).segments, 6);
        b.on_timeout();
        let loss_partial = AckFacts { recover: 12 * MSS, ..facts(10 * MSS, 9 * MSS, MSS) };
        assert_eq!(b.count(&loss_partial, MSS).segments, 1);
        let loss_exit = AckFacts { recover: 12 * MSS, ..facts(15 * MSS, 10 * MSS, MSS) };
        assert_eq!(b.count(&loss_exit, MSS).segments, 3);
        let after = AckFacts { recover: 12 * MSS, ..facts(17 * MSS, 15 * MSS, 2 * MSS) };
        assert_eq!(b.count(&after, MSS).segments, 2);
    }

    /// ECE-received lasts from an ECN-Echo on new data until an ACK without one, or until new
    /// data goes out with CWR; a duplicate with an echo changes nothing.
    #[test]
    fn ece_received_until_an_unmarked_ack_or_new_data() {
        let mut b = Ns3Bookkeeping::new();
        b.on_ack_flags(MSS, true, 0);
        assert!(b.count(&facts(MSS, 0, MSS), MSS).ece_received);
        b.on_sent(10 * MSS, MSS, true);
        b.on_ack_flags(MSS, true, MSS);
        assert!(b.count(&facts(MSS, MSS, 0), MSS).ece_received, "a resend does not carry CWR");
        b.on_sent(11 * MSS, MSS, false);
        assert!(!b.count(&facts(MSS, MSS, 0), MSS).ece_received);
        b.on_ack_flags(2 * MSS, true, MSS);
        assert!(b.count(&facts(2 * MSS, MSS, MSS), MSS).ece_received);
        b.on_ack_flags(3 * MSS, false, 2 * MSS);
        assert!(!b.count(&facts(3 * MSS, 2 * MSS, MSS), MSS).ece_received);
    }

    /// `m_nextTxSequence` follows the last segment sent, a resend included, and after an ACK
    /// never stays below it.
    #[test]
    fn next_tx_follows_the_last_segment_sent() {
        let mut b = Ns3Bookkeeping::new();
        b.on_sent(9 * MSS, MSS, false);
        assert_eq!(b.count(&facts(MSS, 0, MSS), MSS).next_tx, 10 * MSS);
        b.on_sent(2 * MSS, MSS, true);
        assert_eq!(b.count(&facts(5 * MSS, MSS, MSS), MSS).next_tx, 3 * MSS, "read before the ACK moves it");
        assert_eq!(b.count(&facts(6 * MSS, 5 * MSS, MSS), MSS).next_tx, 5 * MSS);
    }

    #[test]
    fn only_the_first_partial_ack_of_a_recovery_restarts_the_timer() {
        let mut b = Ns3Bookkeeping::new();
        assert!(b.partial_ack_restarts_timer());
        assert!(!b.partial_ack_restarts_timer());
        b.count(&AckFacts { in_recovery: true, ends_recovery: true, ..facts(5 * MSS, 4 * MSS, MSS) }, MSS);
        assert!(b.partial_ack_restarts_timer());
    }
}
