//! A Homa message's sender (Montazeri et al., SIGCOMM 2018, Section 3.2): it sends the first
//! RTTbytes of the message at once, unscheduled, at the level the unscheduled cutoffs give the
//! message's size; the rest only as GRANTs allow, at the level each GRANT names; again what a
//! RESEND asks for, or a BUSY when it is busy with other messages (Section 3.7).
//!
//! Choosing among a host's messages (the paper's SRPT at the sender: the message with the fewest
//! bytes left goes first) is not this state machine's: it hands every packet it may send to the
//! host's transmit queue at once, and that queue sends them in that order (the engine's Homa NIC).
//!
//! A message whose every unscheduled packet was lost is unknown to its receiver, which then never
//! asks for it. The paper's RPCs recover it at the client, which times out waiting for the
//! response; a message here is one-way, so its sender does the same: if it has heard nothing from
//! the receiver for twice the receiver's RESEND timeout after sending what it could, and the
//! message is not known to be delivered, it sends the first packet again (incast's choice, after
//! HomaModule's client-side `homa_timer` check; docs/homa.md).

use std::collections::VecDeque;

use super::config::HomaConfig;
use super::header::HomaHeader;
use crate::tcp::DataSegment;
use crate::time::Instant;

/// A packet the sender hands to its host's transmit queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HomaSegment {
    /// Its bytes of the message (none for a BUSY).
    pub data: DataSegment,
    /// What it is.
    pub header: HomaHeader,
}

/// What a sender did, for the flow table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HomaSenderStats {
    /// Bytes sent more than once (RESENDs answered, probes).
    pub retransmitted_bytes: u64,
    /// RESENDs received.
    pub resends: u64,
    /// BUSYs sent.
    pub busy: u64,
    /// First packets sent again after silence.
    pub probes: u64,
}

/// One message's sender.
#[derive(Clone, Debug)]
pub struct HomaSender {
    config: HomaConfig,
    size: u64,
    /// Bytes sent before any grant.
    unscheduled: u64,
    /// Bytes the sender may send (unscheduled ones, then up to the latest GRANT or RESEND).
    granted: u64,
    /// The first byte never sent.
    next: u64,
    /// The level of unscheduled packets, by the message's size.
    unscheduled_priority: u8,
    /// The level of scheduled packets, from the latest GRANT.
    scheduled_priority: u8,
    /// Ranges to send again, with their level.
    resends: VecDeque<(u64, u64, u8)>,
    /// A BUSY to send.
    busy: bool,
    /// Whether the receiver has sent anything for this message.
    heard: bool,
    /// When the first packet goes again if nothing is heard (armed once everything unscheduled
    /// was sent).
    probe_at: Option<Instant>,
    delivered: bool,
    stats: HomaSenderStats,
}

impl HomaSender {
    /// The sender of a message of `size` bytes (at least 1) starting at `now`.
    pub fn new(config: HomaConfig, size: u64, now: Instant) -> HomaSender {
        let size = size.max(1);
        let unscheduled = config.unscheduled(size);
        HomaSender {
            config,
            size,
            unscheduled,
            granted: unscheduled,
            next: 0,
            unscheduled_priority: config.priorities.unscheduled(size),
            scheduled_priority: config.priorities.levels() - 1,
            resends: VecDeque::new(),
            busy: false,
            heard: false,
            probe_at: Some(now + config.resend_timeout.saturating_mul(2)),
            delivered: false,
            stats: HomaSenderStats::default(),
        }
    }

    /// The next packet to hand to the host's queue, if any: a BUSY, then bytes asked for again,
    /// then new bytes up to the grant.
    #[must_use]
    pub fn poll_transmit(&mut self, now: Instant) -> Option<HomaSegment> {
        if self.delivered {
            return None;
        }
        if std::mem::take(&mut self.busy) {
            self.stats.busy += 1;
            let data = self.segment(now, self.next, 0, self.config.control_bytes, false);
            return Some(HomaSegment { data, header: HomaHeader::Busy });
        }
        if let Some((start, end, priority)) = self.resends.pop_front() {
            let len = self.packet_end(start, end) - start;
            if start + len < end {
                self.resends.push_front((start + len, end, priority));
            }
            self.stats.retransmitted_bytes += len;
            return Some(self.data(now, start, len, priority, true));
        }
        if self.next < self.granted {
            let start = self.next;
            let len = self.packet_end(start, self.granted) - start;
            self.next += len;
            let priority = if start < self.unscheduled { self.unscheduled_priority } else { self.scheduled_priority };
            return Some(self.data(now, start, len, priority, false));
        }
        None
    }

    /// A GRANT arrived: the sender may send up to `offset`, scheduled packets at `priority`.
    pub fn handle_grant(&mut self, now: Instant, offset: u64, priority: u8) {
        self.heard(now);
        self.scheduled_priority = priority;
        self.granted = self.granted.max(offset.min(self.size));
    }

    /// A RESEND arrived for `[start, start + len)` at `priority`. If `busy` (the host's queue
    /// still holds packets of this message, behind higher-priority ones), the sender answers
    /// BUSY: the bytes will come when the queue gets to them. Else it sends again what it had
    /// sent of them; a RESEND also grants what it names.
    pub fn handle_resend(&mut self, now: Instant, start: u64, len: u32, priority: u8, busy: bool) {
        self.heard(now);
        self.stats.resends += 1;
        let end = (start + u64::from(len)).min(self.size);
        if end > self.granted {
            // Bytes it grants go at its level, as a GRANT's would.
            self.granted = end;
            self.scheduled_priority = priority;
        }
        if busy {
            self.busy = true;
            return;
        }
        let sent_end = end.min(self.next);
        if start < sent_end {
            self.resends.push_back((start, sent_end, priority));
        }
    }

    /// The receiver acknowledged the whole message (an ACK), or the driver knows it was
    /// delivered (as a response would tell an RPC's client): the sender is done.
    pub fn handle_delivered(&mut self) {
        self.delivered = true;
        self.probe_at = None;
        self.resends.clear();
        self.busy = false;
    }

    /// The probe timer: if nothing was heard, the first packet goes again.
    pub fn handle_timeout(&mut self, now: Instant) {
        let Some(at) = self.probe_at else { return };
        if now < at || self.delivered {
            return;
        }
        if self.heard {
            self.probe_at = None;
            return;
        }
        self.stats.probes += 1;
        let end = self.packet_end(0, self.unscheduled.min(self.next).max(1));
        self.resends.push_back((0, end, self.unscheduled_priority));
        self.probe_at = Some(now + self.config.resend_timeout.saturating_mul(2));
    }

    /// When `handle_timeout` is next due.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.probe_at
    }

    /// Whether the message is known to be delivered.
    pub fn is_complete(&self) -> bool {
        self.delivered
    }

    /// The message's length.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes never sent yet (the sender's SRPT order: fewest first).
    pub fn bytes_left(&self) -> u64 {
        self.size - self.next
    }

    /// Bytes the sender may send so far.
    pub fn granted(&self) -> u64 {
        self.granted
    }

    /// The level of the message's unscheduled packets.
    pub fn unscheduled_priority(&self) -> u8 {
        self.unscheduled_priority
    }

    /// What the sender did.
    pub fn stats(&self) -> HomaSenderStats {
        self.stats
    }

    fn heard(&mut self, _now: Instant) {
        self.heard = true;
        self.probe_at = None;
    }

    /// Where a packet starting at `start` ends: a full payload, but never past `limit`, and
    /// the unscheduled bytes end a packet of their own (as HomaSimulation packetizes them).
    fn packet_end(&self, start: u64, limit: u64) -> u64 {
        let mut end = (start + u64::from(self.config.max_payload)).min(limit).min(self.size);
        if start < self.unscheduled {
            end = end.min(self.unscheduled);
        }
        end
    }

    fn data(&self, now: Instant, start: u64, len: u64, priority: u8, retransmission: bool) -> HomaSegment {
        let data = self.segment(now, start, len as u32, self.config.data_header_bytes, retransmission);
        HomaSegment { data, header: HomaHeader::Data { message_bytes: self.size, priority } }
    }

    fn segment(&self, now: Instant, seq: u64, len: u32, header_bytes: u32, retransmission: bool) -> DataSegment {
        DataSegment { seq, len, header_bytes: header_bytes as u16, ts: now, ect: false, ce: false, retransmission, syn: false }
    }
}
